// Types of the Moddable module "modules/native/vp-alac" (vp-alac.js, bound by xsc to vp-alac.c);
// the function is described in natives.ts.
import type { NativeAlac } from './natives';

export declare const alacDecode: NativeAlac['alacDecode'];
