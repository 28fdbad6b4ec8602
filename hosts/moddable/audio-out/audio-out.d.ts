// The SDK's `embedded:io/audio/out` class where the platform links it (audio-out.js), undefined
// where it does not (audio-out-absent.js).
import type { AudioOut419Constructor } from '../audio-sink';

declare const AudioOut: AudioOut419Constructor | undefined;
export default AudioOut;
