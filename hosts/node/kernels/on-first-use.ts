// A kernel chosen when a feature first needs it, not at start (the frame, ALAC and NAL kernels'
// ChosenOnFirstUse classes): `choose` loads, self-tests and logs a build once, on the first call.

/** A function that calls `choose` the first time it is called and returns what it chose ever after. */
export function onFirstUse<T>(choose: () => T): () => T {
  let chosen: { readonly value: T } | undefined;
  return () => (chosen ??= { value: choose() }).value;
}
