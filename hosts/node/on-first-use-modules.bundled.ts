// on-first-use-modules.ts as the build compiles it (scripts/build.mjs puts this file in its
// place): each module evaluated on the first call, not at start. An ES module's static imports
// are all evaluated before it runs, and import() answers with a promise, while the kernels answer
// at once; esbuild compiles `require` of a bundled module to a call of that module's init
// function (its code is in the bundle, run on the first call, once), the one instance every
// static importer of it shares. Node's own `require` never runs here: the bundle has no other.

/** The portable crypto build (it imports @noble/curves). */
export const loadPortableBuild = (): typeof import('../../src/pairing/portable-crypto-kernels') => require('../../src/pairing/portable-crypto-kernels');
/** The frame kernels' module (WebAssembly loading and self-tests; it imports the portable build). */
export const loadFrameKernels = (): typeof import('./kernels/kernels') => require('./kernels/kernels');
