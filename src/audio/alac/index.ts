// The face of src/audio/alac/: Apple Lossless decoding for realtime audio (RAOP's AppleLossless,
// the session streams' ct 2): the stream's config, the decoder, and the kernel contract its
// builds share.

export { AudioDecodeError } from '../decoder';
export { ALAC_BIT_DEPTHS, ALAC_COOKIE_BYTES, ALAC_MAX_CHANNELS, ALAC_MAX_FRAME_LENGTH, alacConfigFromCookie, alacCookie, alacFmtp, checkAlacConfig, parseAlacFmtp, realtimeAlacConfig } from './alac-config';
export type { AlacConfig } from './alac-config';
export { createAlacDecoder } from './alac-decoder';
export type { AlacDecoder } from './alac-decoder';
export { ALAC_FAULT, alacFaultError } from './alac-faults';
export type { AlacFault } from './alac-faults';
export { ALAC_ELEMENT } from './alac-frame';
export { checkAlacOutput, portableAlacKernel } from './alac-kernel';
export type { AlacKernel } from './alac-kernel';
