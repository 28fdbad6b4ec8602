// The natives of video-decoder.c as a Moddable module ("modules/native/video-decoder/video-decoder"); their
// contract is natives.ts, and hosts/moddable/video-decoder.ts makes the VideoDecoder port of them.

function open(codec, areaWidth, areaHeight, pixelFormat, pending) @ "xs_vp_video_open";
function name(decoder) @ "xs_vp_video_name";
function configure(decoder, parameterSets) @ "xs_vp_video_configure";
function push(decoder, accessUnit, time) @ "xs_vp_video_push";
function peek(decoder, info) @ "xs_vp_video_peek";
function read(decoder, pixels) @ "xs_vp_video_read";
function drop(decoder) @ "xs_vp_video_drop";
function flush(decoder) @ "xs_vp_video_flush";
function close(decoder) @ "xs_vp_video_close";

/** libavcodec is linked (video-decoder-absent.js says false where it is not). */
export const available = true;

export { open, name, configure, push, peek, read, drop, flush, close };
