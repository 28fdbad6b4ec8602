// Types of the Moddable module "modules/native/vp-aac" (vp-aac.js, bound by xsc to vp-aac.c, or
// vp-aac-absent.js); each function is described in natives.ts.
import type { NativeAac } from './natives';

/** False on the platforms whose manifest links no libavcodec (vp-aac-absent.js); the functions are then missing. */
export declare const available: boolean;

export declare const aacOpen: NativeAac['aacOpen'];
export declare const aacDecode: NativeAac['aacDecode'];
export declare const aacFlush: NativeAac['aacFlush'];
export declare const aacClose: NativeAac['aacClose'];
