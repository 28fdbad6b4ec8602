// A kernel chosen when a feature first needs it, not at start (the frame, ALAC and NAL kernels'
// ChosenOnFirstUse classes): `choose` loads, self-tests and logs a build once, on the first call.
// The frame kernel's class lives here, beside onFirstUse, not in kernels.ts: the receiver's crypto
// port (crypto-on-first-use.ts) takes it at start, and kernels.ts evaluates @noble/curves.

import type { FrameKernel } from '../../../src/pairing';

/** A function that calls `choose` the first time it is called and returns what it chose ever after. */
export function onFirstUse<T>(choose: () => T): () => T {
  let chosen: { readonly value: T } | undefined;
  return () => (chosen ??= { value: choose() }).value;
}

/**
 * A FrameKernel that chooses its build (`choose`: selectFrameKernel, kernels.ts) when the first
 * frame is sealed or opened, and delegates to it from then on. Until a sender pairs nothing needs
 * it: a start does not compile the module nor run its self-test, whose portable half is hot
 * enough for V8's optimising compiler (the startup bench: about 2 MB of resident memory at idle
 * and a few ms before the first answer).
 */
export class FrameKernelChosenOnFirstUse implements FrameKernel {
  private readonly kernel: () => FrameKernel;

  constructor(choose: () => FrameKernel) {
    this.kernel = onFirstUse(choose);
  }

  seal(key: Uint8Array, counter: bigint, aad: Uint8Array, plaintext: Uint8Array, output?: Uint8Array): Uint8Array {
    return this.kernel().seal(key, counter, aad, plaintext, output);
  }

  open(key: Uint8Array, counter: bigint, aad: Uint8Array, sealed: Uint8Array, output?: Uint8Array): Uint8Array {
    return this.kernel().open(key, counter, aad, sealed, output);
  }
}
