/*
 * The XS test host's hook (modules/native/xs-host/build.mjs): @agoric/xsnap's worker, compiled
 * with its call to modInstallBase64 renamed to vpInstallNatives, installs the natives of
 * vp-crypto.c, vp-nal.c and vp-alac.c here as the global object `__vpNatives` (the names of natives.ts),
 * those of video-decoder/video-decoder.c as `__vpVideo` (video-decoder/natives.ts), and those of
 * vp-aac.c (libavcodec's AAC decoder) as `__vpAac`: the same C functions the Moddable modules
 * vp-crypto.js, vp-nal.js, video-decoder.js and vp-aac.js bind with xsc.
 * Also the heap and meter figures the benchmarks read (__vpHeap, __vpHeapReset, __vpMeter), and
 * the stand-in for the function lengths the SDK's linker leaves out.
 */

#include "xsAll.h"
#include "xs.h"

extern void modInstallBase64(xsMachine *the);

extern void xs_vp_aead_seal(xsMachine *the);
extern void xs_vp_aead_open(xsMachine *the);
extern void xs_vp_x25519_base(xsMachine *the);
extern void xs_vp_x25519(xsMachine *the);
extern void xs_vp_ed25519_public(xsMachine *the);
extern void xs_vp_ed25519_sign(xsMachine *the);
extern void xs_vp_ed25519_verify(xsMachine *the);
extern void xs_vp_sha512(xsMachine *the);
extern void xs_vp_hmac_sha512(xsMachine *the);
extern void xs_vp_modexp(xsMachine *the);
extern void xs_vp_nal_scan(xsMachine *the);
extern void xs_vp_nal_write(xsMachine *the);
extern void xs_vp_alac_decode(xsMachine *the);

extern void xs_vp_aac_open(xsMachine *the);
extern void xs_vp_aac_decode(xsMachine *the);
extern void xs_vp_aac_flush(xsMachine *the);
extern void xs_vp_aac_close(xsMachine *the);

extern void xs_vp_video_open(xsMachine *the);
extern void xs_vp_video_name(xsMachine *the);
extern void xs_vp_video_configure(xsMachine *the);
extern void xs_vp_video_push(xsMachine *the);
extern void xs_vp_video_peek(xsMachine *the);
extern void xs_vp_video_read(xsMachine *the);
extern void xs_vp_video_drop(xsMachine *the);
extern void xs_vp_video_flush(xsMachine *the);
extern void xs_vp_video_close(xsMachine *the);

/*
 * xsl, the SDK's linker, writes C_NULL for newFunctionLength in the defaults of every app it
 * links (xs/tools/xslStrip.c), so functions there have no own `length`. The host's xsDefaults.c
 * is compiled with its entry renamed to this no-op: the same engine behaviour, on purpose.
 */
txSlot* vpNoFunctionLength(txMachine* the, txSlot* instance, txNumber length)
{
	return C_NULL;
}

/* __vpHeap(): the XS heap in bytes now and at its peak: { chunks, peakChunks, slots, peakSlots }. */
static void xs_vp_heap(xsMachine *the)
{
	xsResult = xsNewObject();
	xsSet(xsResult, xsID("chunks"), xsNumber(the->currentChunksSize));
	xsSet(xsResult, xsID("peakChunks"), xsNumber(the->peakChunksSize));
	xsSet(xsResult, xsID("slots"), xsNumber((double)the->currentHeapCount * sizeof(txSlot)));
	xsSet(xsResult, xsID("peakSlots"), xsNumber((double)the->peakHeapCount * sizeof(txSlot)));
}

/* __vpHeapReset(): the peaks start again from the current sizes (a benchmark's baseline). */
static void xs_vp_heap_reset(xsMachine *the)
{
	the->peakChunksSize = the->currentChunksSize;
	the->peakHeapCount = the->currentHeapCount;
}

/* __vpMeter(): XS's compute meter (byte-code steps so far in this evaluation). */
static void xs_vp_meter(xsMachine *the)
{
#ifdef mxMetering
	xsResult = xsNumber((double)the->meterIndex);
#endif
}

/* Called inside the worker's xsBuildAgent host frame, which has one variable (xsVar(0)) and xsResult. */
static void vpDefine(xsMachine *the, const char *name, xsCallback callback, xsIntegerValue length)
{
	xsVar(0) = xsNewHostFunction(callback, length);
	xsSet(xsResult, xsID(name), xsVar(0));
}

void vpInstallNatives(xsMachine *the)
{
	modInstallBase64(the);
	xsResult = xsNewObject();
	vpDefine(the, "aeadSeal", xs_vp_aead_seal, 5);
	vpDefine(the, "aeadOpen", xs_vp_aead_open, 5);
	vpDefine(the, "x25519Base", xs_vp_x25519_base, 2);
	vpDefine(the, "x25519", xs_vp_x25519, 3);
	vpDefine(the, "ed25519Public", xs_vp_ed25519_public, 2);
	vpDefine(the, "ed25519Sign", xs_vp_ed25519_sign, 3);
	vpDefine(the, "ed25519Verify", xs_vp_ed25519_verify, 3);
	vpDefine(the, "sha512", xs_vp_sha512, 2);
	vpDefine(the, "hmacSha512", xs_vp_hmac_sha512, 3);
	vpDefine(the, "modexp", xs_vp_modexp, 4);
	vpDefine(the, "nalScan", xs_vp_nal_scan, 3);
	vpDefine(the, "nalWrite", xs_vp_nal_write, 3);
	vpDefine(the, "alacDecode", xs_vp_alac_decode, 5);
	xsSet(xsGlobal, xsID("__vpNatives"), xsResult);
	/* The video decoder natives (modules/native/video-decoder/natives.ts) as __vpVideo. */
	xsResult = xsNewObject();
	vpDefine(the, "open", xs_vp_video_open, 5);
	vpDefine(the, "name", xs_vp_video_name, 1);
	vpDefine(the, "configure", xs_vp_video_configure, 2);
	vpDefine(the, "push", xs_vp_video_push, 3);
	vpDefine(the, "peek", xs_vp_video_peek, 2);
	vpDefine(the, "read", xs_vp_video_read, 2);
	vpDefine(the, "drop", xs_vp_video_drop, 1);
	vpDefine(the, "flush", xs_vp_video_flush, 1);
	vpDefine(the, "close", xs_vp_video_close, 1);
	xsSet(xsGlobal, xsID("__vpVideo"), xsResult);
	/* The AAC decoder natives (modules/native/vp-aac.c, NativeAac of natives.ts) as __vpAac. */
	xsResult = xsNewObject();
	vpDefine(the, "aacOpen", xs_vp_aac_open, 3);
	vpDefine(the, "aacDecode", xs_vp_aac_decode, 3);
	vpDefine(the, "aacFlush", xs_vp_aac_flush, 1);
	vpDefine(the, "aacClose", xs_vp_aac_close, 1);
	xsSet(xsGlobal, xsID("__vpAac"), xsResult);
	xsVar(0) = xsNewHostFunction(xs_vp_heap, 0);
	xsSet(xsGlobal, xsID("__vpHeap"), xsVar(0));
	xsVar(0) = xsNewHostFunction(xs_vp_heap_reset, 0);
	xsSet(xsGlobal, xsID("__vpHeapReset"), xsVar(0));
	xsVar(0) = xsNewHostFunction(xs_vp_meter, 0);
	xsSet(xsGlobal, xsID("__vpMeter"), xsVar(0));
}
