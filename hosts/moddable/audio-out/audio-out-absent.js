// "hosts/moddable/audio-out/audio-out" on the platforms whose manifest links no audio output (mac,
// win, others): no audio sink, so the receiver offers no realtime audio.

export default undefined;
