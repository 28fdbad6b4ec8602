// Types of the Moddable module "modules/native/vp-nal" (vp-nal.js, bound by xsc to vp-nal.c);
// each function is described in natives.ts.
import type { NativeNal } from './natives';

export declare const nalScan: NativeNal['nalScan'];
export declare const nalWrite: NativeNal['nalWrite'];
