// The module `src/discovery`: the core imports the folder by name ('../discovery'), which TypeScript and
// bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./discovery/index";
