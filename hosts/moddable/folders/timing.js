// The module `src/timing`: the core and the host import the folder by name, which TypeScript and
// bundlers resolve to its index; Moddable names modules exactly, so this one stands for the folder.
export * from "./timing/index";
