// The natives of vp-nal.c as a Moddable module ("modules/native/vp-nal"); their contract is
// NativeNal in natives.ts, and modules/native/nal-kernel.ts wraps them into a NalKernel.

function nalScan(payload, lengthSize, report) @ "xs_vp_nal_scan";
function nalWrite(payload, lengthSize, output) @ "xs_vp_nal_write";

export { nalScan, nalWrite };
