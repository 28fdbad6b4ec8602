// "hosts/moddable/audio-out/audio-out" where the manifest links the SDK's ECMA-419 audio output
// (lin: ALSA, esp32: I2S; ../manifest.json): the class the audio sink opens per stream.

import AudioOut from "embedded:io/audio/out";

export default AudioOut;
