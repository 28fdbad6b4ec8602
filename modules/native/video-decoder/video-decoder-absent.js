// "modules/native/video-decoder/video-decoder" on the platforms whose manifest links no libavcodec (esp32, mac,
// win, others: see ../README.md): no decoder, so the host offers no screen mirroring.

export const available = false;
