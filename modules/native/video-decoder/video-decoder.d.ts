// Types of the Moddable module "modules/native/video-decoder/video-decoder" (video-decoder.js, bound
// by xsc to video-decoder.c); each function is described in natives.ts.
import type { NativeVideoDecoder } from './natives';

/** False on the platforms whose manifest links no libavcodec (video-decoder-absent.js); the functions are then missing. */
export declare const available: boolean;

export declare const open: NativeVideoDecoder['open'];
export declare const name: NativeVideoDecoder['name'];
export declare const configure: NativeVideoDecoder['configure'];
export declare const push: NativeVideoDecoder['push'];
export declare const peek: NativeVideoDecoder['peek'];
export declare const read: NativeVideoDecoder['read'];
export declare const drop: NativeVideoDecoder['drop'];
export declare const flush: NativeVideoDecoder['flush'];
export declare const close: NativeVideoDecoder['close'];
