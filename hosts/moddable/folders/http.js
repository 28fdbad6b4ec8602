// The module `src/http`: the core imports the folder by name ('../http'), which TypeScript and
// bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./http/index";
