/*
 * XS natives of the mirroring stream's NAL kernel (DESIGN 5): a video payload's H.264
 * NAL units, each behind a big-endian length of avcC's lengthSize bytes (spec 2.14; ISO/IEC
 * 14496-15 5.3.3), rewritten behind Annex B start codes. Plain C, no library: it builds for
 * every platform.
 *
 * Two calls, so that nothing is allocated here: nalScan checks every length and counts the
 * units (the caller then knows the output's size and makes it), nalWrite writes the start codes,
 * in place on the payload's own buffer for 4-byte lengths. Neither allocates in the XS heap, so
 * the data pointers taken from the arguments stay valid for the whole call. The contract they
 * serve is NalKernel (src/mirror/nal-kernel.ts); modules/native/nal-kernel.ts wraps them into it,
 * and they pass the same vectors (test/vectors/nal-annexb.json).
 */

#include "xsmc.h"
#include "vp-args.h"

#include <stdint.h>
#include <string.h>

/* H.264 nal_unit_type of a slice of an IDR picture (ITU-T H.264 table 7-1). */
#define NAL_TYPE_IDR 5
#define START_CODE_BYTES 4

static int vpLengthSize(xsMachine *the)
{
	xsIntegerValue lengthSize = xsmcToInteger(xsArg(1));
	if ((lengthSize != 1) && (lengthSize != 2) && (lengthSize != 4))
		xsRangeError("NAL unit length size %d: avcC allows 1, 2 or 4", (int)lengthSize);
	return (int)lengthSize;
}

static uint32_t vpReadLength(const uint8_t *at, int lengthSize)
{
	if (lengthSize == 4)
		return ((uint32_t)at[0] << 24) | ((uint32_t)at[1] << 16) | ((uint32_t)at[2] << 8) | at[3];
	if (lengthSize == 2)
		return ((uint32_t)at[0] << 8) | at[1];
	return at[0];
}

typedef struct {
	uint32_t units;
	uint32_t keyFrame;
	/* Where a walk stopped on a bad length: the offset of that unit's length field. */
	uint32_t faultAt;
	int ok;
} vpWalk;

/* Checks every length of payload[0, length): each whole, non-zero and within the payload. */
static vpWalk vpScan(const uint8_t *payload, uint64_t length, int lengthSize)
{
	vpWalk walk = { 0, 0, 0, 1 };
	uint64_t at = 0;
	while (at < length) {
		uint64_t start = at + (uint64_t)lengthSize;
		uint32_t nalLength = 0;
		if (start <= length)
			nalLength = vpReadLength(payload + at, lengthSize);
		if ((start > length) || (nalLength == 0) || (start + nalLength > length)) {
			walk.faultAt = (uint32_t)at;
			walk.ok = 0;
			return walk;
		}
		if ((payload[start] & 0x1f) == NAL_TYPE_IDR)
			walk.keyFrame = 1;
		walk.units++;
		at = start + nalLength;
	}
	return walk;
}

/*
 * nalScan(payload, lengthSize, report): true when every length is good, with report = [units,
 * keyFrame 0 or 1, 0]; false otherwise, with report = [index of the bad unit, 0, offset of its
 * length field] (the wrapper names the fault from the payload). report is 12 bytes (xsmc takes
 * only byte arrays as buffers): three uint32 in this machine's byte order, which a Uint32Array
 * on the same ArrayBuffer reads.
 */
void xs_vp_nal_scan(xsMachine *the)
{
	vpNeedArgs(the, 3, "nalScan(payload, lengthSize, report)");
	int lengthSize = vpLengthSize(the);
	void *payload, *report;
	xsUnsignedValue length, reportLength;
	vpWalk walk;
	uint32_t out[3];
	xsmcGetBufferReadable(xsArg(0), &payload, &length);
	xsmcGetBufferWritable(xsArg(2), &report, &reportLength);
	if (reportLength < sizeof(out))
		xsRangeError("nalScan: report of %u bytes, expected %u", (unsigned)reportLength, (unsigned)sizeof(out));
	walk = vpScan(payload, length, lengthSize);
	out[0] = walk.units;
	out[1] = walk.ok ? walk.keyFrame : 0;
	out[2] = walk.ok ? 0 : walk.faultAt;
	memcpy(report, out, sizeof(out));
	xsmcSetBoolean(xsResult, walk.ok);
}

/*
 * nalWrite(payload, lengthSize, output): the Annex B of payload into output, which must be
 * payload.length + units * (4 - lengthSize) bytes. With 4-byte lengths output may be the payload
 * itself: the start codes then overwrite the lengths and nothing moves. Otherwise it must not
 * overlap the payload. The lengths are checked again: a payload nalScan refused, or an output of
 * another size, is a RangeError with nothing written.
 */
void xs_vp_nal_write(xsMachine *the)
{
	vpNeedArgs(the, 3, "nalWrite(payload, lengthSize, output)");
	int lengthSize = vpLengthSize(the);
	void *payloadData, *outputData;
	xsUnsignedValue length, outputLength;
	const uint8_t *payload, *from, *end;
	uint8_t *to;
	vpWalk walk;
	uint64_t size;
	xsmcGetBufferReadable(xsArg(0), &payloadData, &length);
	xsmcGetBufferWritable(xsArg(2), &outputData, &outputLength);
	payload = payloadData;
	walk = vpScan(payload, length, lengthSize);
	if (!walk.ok)
		xsRangeError("nalWrite: the length at offset %u is bad (nalScan refuses this payload)", (unsigned)walk.faultAt);
	size = (uint64_t)length + (uint64_t)walk.units * (uint64_t)(START_CODE_BYTES - lengthSize);
	if (size != outputLength)
		xsRangeError("nalWrite: output of %u bytes, expected %u", (unsigned)outputLength, (unsigned)size);
	to = outputData;
	/* Only the in-place case may share bytes: any other overlap would read what was just written. */
	if (!((lengthSize == 4) && (to == payload)) && (to < payload + length) && (payload < to + outputLength))
		xsRangeError("nalWrite: the output overlaps the payload (only 4-byte lengths convert in place, on the payload itself)");
	from = payload;
	end = payload + length;
	while (from < end) {
		uint32_t nalLength = vpReadLength(from, lengthSize);
		const uint8_t *unit = from + lengthSize;
		/* In place (4-byte lengths, output == payload) the unit is already where it belongs. */
		if (to + START_CODE_BYTES != unit)
			memmove(to + START_CODE_BYTES, unit, nalLength);
		to[0] = 0;
		to[1] = 0;
		to[2] = 0;
		to[3] = 1;
		to += START_CODE_BYTES + nalLength;
		from = unit + nalLength;
	}
}
