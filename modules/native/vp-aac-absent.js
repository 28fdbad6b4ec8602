// "modules/native/vp-aac" on the platforms whose manifest links no libavcodec (esp32, mac, win,
// others: see README.md): no AAC decoder, so the host serves no AAC stream.

export const available = false;
