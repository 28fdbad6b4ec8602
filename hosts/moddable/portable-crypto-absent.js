// "hosts/moddable/portable-crypto" on the platforms whose manifest links the natives (lin, esp32:
// modules/native/vp-crypto): the host runs pairing on them, and no module of these builds
// imports @noble/curves (test/xs/crypto-reach.test.ts).

export const available = false;

export function createPortableCryptoKernels() {
  throw new Error('no portable crypto kernels in this build: the natives of modules/native/vp-crypto are linked instead');
}
