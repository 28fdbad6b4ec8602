// The modules the Node host evaluates on first use (crypto-on-first-use.ts), as a run from the
// TypeScript (tsx, the tests) gets them: imported here like any other, evaluated at start. The
// build (scripts/build.mjs) puts on-first-use-modules.bundled.ts in this file's place, where they
// are evaluated when first asked for; both give the one instance of each module.

import * as frameKernels from './kernels/kernels';
import * as portableBuild from '../../src/pairing/portable-crypto-kernels';

/** The portable crypto build (it imports @noble/curves). */
export const loadPortableBuild = (): typeof portableBuild => portableBuild;
/** The frame kernels' module (WebAssembly loading and self-tests; it imports the portable build). */
export const loadFrameKernels = (): typeof frameKernels => frameKernels;
