// "modules/native/vp-crypto" on the platforms whose manifest links no libsodium and mbedTLS
// (mac, win, others: see README.md): no natives, so the host keeps the portable kernels.

export const available = false;
