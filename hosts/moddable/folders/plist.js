// The module `src/plist`: the core imports the folder by name ('../plist'), which TypeScript and
// bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./plist/index";
