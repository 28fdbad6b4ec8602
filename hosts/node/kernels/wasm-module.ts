// Instantiating one of the project's WebAssembly kernels (assemblyscript/*.ts, built by
// `npm run build:kernels`) on Node: compiled synchronously (each is a few KB), its exports
// checked before anything calls them, so an old or broken build is refused with one message.

/** The part of the WebAssembly JavaScript API used here (the DOM lib declares it; we have no DOM). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/**
 * The exports of the module in `bytes`, typed as `Exports`, once it exports its memory and every
 * function named in `functions`; otherwise throws naming what is missing.
 */
export function instantiateKernel<Exports>(bytes: Uint8Array, functions: readonly string[]): Exports {
  const { exports } = new wasmApi.Instance(new wasmApi.Module(bytes), {});
  const missing = functions.filter((name) => typeof exports[name] !== 'function');
  if (!(exports.memory instanceof wasmApi.Memory)) missing.unshift('memory');
  if (missing.length > 0) throw new Error(`the module does not export ${missing.join(', ')} (an old build? npm run build:kernels)`);
  return exports as unknown as Exports;
}
