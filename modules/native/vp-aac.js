// The natives of vp-aac.c (libavcodec's AAC decoder) as a Moddable module ("modules/native/vp-aac")
// where the manifest links libavcodec (lin); their contract is NativeAac in natives.ts, and
// vp-aac-decoder.ts makes the AudioDecoder port of them.

function aacOpen(config, sampleRate, channels) @ "xs_vp_aac_open";
function aacDecode(decoder, unit, output) @ "xs_vp_aac_decode";
function aacFlush(decoder) @ "xs_vp_aac_flush";
function aacClose(decoder) @ "xs_vp_aac_close";

/** libavcodec is linked (vp-aac-absent.js says false where it is not). */
export const available = true;

export { aacOpen, aacDecode, aacFlush, aacClose };
