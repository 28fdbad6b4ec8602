// The native of vp-alac.c as a Moddable module ("modules/native/vp-alac"); its contract is
// NativeAlac in natives.ts, and modules/native/alac-kernel.ts wraps it into an AlacKernel.

function alacDecode(cookie, packet, output, sampleBytes, work) @ "xs_vp_alac_decode";

export { alacDecode };
