// The module `src/audio/alac`: the core imports the ALAC decoder's folder by name, which TypeScript
// and bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./alac/index";
