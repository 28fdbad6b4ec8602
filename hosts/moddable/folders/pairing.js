// The module `src/pairing`: the core and the host import the folder by name, which TypeScript and
// bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./pairing/index";
