/*
 * XS natives of the ALAC decoder's kernel (src/audio/alac/alac-kernel.ts): one packet (one ALAC
 * frame) decoded into an output buffer given the stream's config. Plain C, no library: it builds
 * for every platform. The same algorithm, step for step and fault for fault, as the TypeScript
 * reference (alac-bit-reader.ts, alac-adaptive-golomb.ts, alac-predictor.ts, alac-frame.ts), so
 * every build passes the same vectors (test/vectors/alac.json) and refuses the same packets with
 * the same fault code (alac-faults.ts).
 *
 * Nothing is allocated here: the caller passes the work buffer (16 bytes per sample of the frame
 * length) and the output, so the data pointers taken from the arguments stay valid for the call.
 * The packet is read where it lies; reads past its end give zeros (the reference reads its zero
 * padding), checked at the same points as the reference.
 */

#include "xsmc.h"
#include "vp-args.h"

#include <stdint.h>
#include <string.h>

/* Fault codes: ALAC_FAULT of alac-faults.ts. */
enum {
	VP_ALAC_TRUNCATED = 1,
	VP_ALAC_UNSUPPORTED_ELEMENT = 2,
	VP_ALAC_TOO_MANY_CHANNELS = 3,
	VP_ALAC_TOO_MANY_SAMPLES = 4,
	VP_ALAC_NO_SAMPLES = 5,
	VP_ALAC_SAMPLE_COUNT_MISMATCH = 6,
	VP_ALAC_BAD_SHIFT = 7,
	VP_ALAC_RUN_PAST_FRAME = 8,
	VP_ALAC_MISSING_CHANNELS = 9
};

/* Element tags (ALAC_ELEMENT of alac-frame.ts). */
enum { VP_SCE = 0, VP_CPE = 1, VP_CCE = 2, VP_LFE = 3, VP_DSE = 4, VP_PCE = 5, VP_FIL = 6, VP_END = 7 };

#define VP_ALAC_COOKIE_BYTES 24
#define VP_ALAC_MAX_FRAME_LENGTH 16384
#define VP_ALAC_MAX_CHANNELS 8
/* Work buffer bytes per sample of the frame length: two channels and the pair's shifted bits. */
#define VP_ALAC_WORK_PER_SAMPLE 16

/* The adaptive Golomb coder's constants (alac-adaptive-golomb.ts). */
#define VP_ESCAPE_PREFIX 9
#define VP_HISTORY_SHIFT 9
#define VP_RUN_HISTORY 128
#define VP_HISTORY_CLAMP 0xffff
#define VP_RUN_ESCAPE_BITS 16

typedef struct {
	uint32_t frameLength;
	uint32_t bitDepth;
	uint32_t pb;
	uint32_t mb;
	uint32_t kb;
	uint32_t numChannels;
} vpAlacConfig;

typedef struct {
	const uint8_t *bytes;
	uint32_t length;
	/* Positions in bits. */
	uint32_t pos;
	uint32_t end;
	int overrun;
} vpBits;

typedef struct {
	int32_t *first;
	int32_t *second;
	int32_t *shifted;
	int16_t coefficients[2][32];
	uint32_t modes[2];
	uint32_t denShifts[2];
	uint32_t pbFactors[2];
	uint32_t orders[2];
	uint32_t mixBits;
	int32_t mixRes;
	uint32_t shiftBits;
} vpScratch;

static inline uint32_t vpClz(uint32_t value)
{
#if defined(__GNUC__) || defined(__clang__)
	return value ? (uint32_t)__builtin_clz(value) : 32;
#else
	uint32_t count = 0;
	if (value == 0)
		return 32;
	while (!(value & 0x80000000u)) {
		value <<= 1;
		count++;
	}
	return count;
#endif
}

/* The 32 bits from bit `pos`, first bit highest; bytes past the packet read as zero. */
static inline uint32_t vpPeek32(const vpBits *bits, uint32_t pos)
{
	uint32_t at = pos >> 3, offset = pos & 7;
	uint64_t window = 0;
	if (at + 8 <= bits->length) {
		const uint8_t *p = bits->bytes + at;
		/* Eight bytes as one big-endian number: the compiler makes it a load and a byte swap. */
		window = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | p[7];
	}
	else {
		int i;
		for (i = 0; i < 8; i++)
			window = (window << 8) | ((at + (uint32_t)i < bits->length) ? bits->bytes[at + i] : 0);
	}
	return (uint32_t)(window >> (32 - offset));
}

static uint32_t vpRead(vpBits *bits, uint32_t count)
{
	uint32_t value;
	if (count == 0)
		return 0;
	value = vpPeek32(bits, bits->pos) >> (32 - count);
	bits->pos += count;
	if (bits->pos > bits->end) {
		bits->overrun = 1;
		bits->pos = bits->end;
	}
	return value;
}

static int32_t vpReadSigned(vpBits *bits, uint32_t count)
{
	return (int32_t)(vpRead(bits, count) << (32 - count)) >> (32 - count);
}

static void vpSkip(vpBits *bits, uint32_t count)
{
	if (count > bits->end - bits->pos) {
		bits->overrun = 1;
		bits->pos = bits->end;
		return;
	}
	bits->pos += count;
}

/*
 * One code of the adaptive Golomb coder: a unary prefix, then k bits (k - 1 for the two lowest),
 * or an escape. k is at most 23 (the history is below 2^32) and the prefix at most 8, so the
 * prefix, its 0 and the k bits all lie in the one 32-bit window.
 */
static inline uint32_t vpGolomb(const vpBits *bits, uint32_t *pos, uint32_t k, uint32_t escapeBits)
{
	uint32_t at = *pos;
	uint32_t window = vpPeek32(bits, at);
	uint32_t prefix = vpClz(~window);
	uint32_t value, low;
	if (prefix >= VP_ESCAPE_PREFIX) {
		value = vpPeek32(bits, at + VP_ESCAPE_PREFIX) >> (32 - escapeBits);
		*pos = at + VP_ESCAPE_PREFIX + escapeBits;
		return value;
	}
	value = prefix * ((1u << k) - 1);
	low = (window << (prefix + 1)) >> (32 - k);
	at += prefix + 1;
	if (low >= 2) {
		value += low - 1;
		at += k;
	}
	else
		at += k - 1;
	*pos = at;
	return value;
}

/* decodeResiduals of alac-adaptive-golomb.ts: 0 or a fault. */
static int vpResiduals(vpBits *bits, int32_t *out, uint32_t count, uint32_t escapeBits, uint32_t multiplier, uint32_t initialHistory, uint32_t kLimit)
{
	uint32_t pos = bits->pos, end = bits->end;
	uint32_t history = initialHistory, afterRun = 0, i, k;
	for (i = 0; i < count; i++) {
		uint32_t value, coded;
		if (pos >= end)
			return VP_ALAC_TRUNCATED;
		k = 31 - vpClz((history >> VP_HISTORY_SHIFT) + 3);
		if (k > kLimit)
			k = kLimit;
		value = vpGolomb(bits, &pos, k, escapeBits);
		coded = value + afterRun;
		out[i] = (int32_t)((coded >> 1) ^ (0u - (coded & 1)));
		afterRun = 0;
		history = (value > VP_HISTORY_CLAMP) ? VP_HISTORY_CLAMP : history + coded * multiplier - ((history * multiplier) >> VP_HISTORY_SHIFT);
		if ((history < VP_RUN_HISTORY) && (i + 1 < count)) {
			uint32_t run;
			k = vpClz(history) - 24 + ((history + 16) >> 6);
			if (k > kLimit)
				k = kLimit;
			run = vpGolomb(bits, &pos, k, VP_RUN_ESCAPE_BITS);
			if (run > count - i - 1)
				return VP_ALAC_RUN_PAST_FRAME;
			memset(out + i + 1, 0, run * sizeof(int32_t));
			i += run;
			afterRun = (run < 0xffff) ? 1 : 0;
			history = 0;
		}
	}
	if (pos > end)
		return VP_ALAC_TRUNCATED;
	bits->pos = pos;
	return 0;
}

static inline int32_t vpWrap(uint32_t value, uint32_t shift)
{
	return (int32_t)(value << shift) >> shift;
}

/* unpredict of alac-predictor.ts, in place; arithmetic in uint32 where the reference wraps (Math.imul, | 0). */
static void vpUnpredict(int32_t *samples, uint32_t count, int16_t *coefficients, uint32_t order, uint32_t sampleBits, uint32_t denShift)
{
	uint32_t shift = 32 - sampleBits, j, warm, half;
	if ((order == 0) || (count <= 1))
		return;
	if (order == 31) {
		for (j = 1; j < count; j++)
			samples[j] = vpWrap((uint32_t)samples[j] + (uint32_t)samples[j - 1], shift);
		return;
	}
	warm = (order + 1 < count) ? order + 1 : count;
	for (j = 1; j < warm; j++)
		samples[j] = vpWrap((uint32_t)samples[j] + (uint32_t)samples[j - 1], shift);
	half = denShift ? (1u << (denShift - 1)) : 0;
	for (j = order + 1; j < count; j++) {
		const int32_t *previous = samples + j - 1;
		int32_t top = samples[j - order - 1];
		uint32_t sum = 0;
		int32_t residual = samples[j], error;
		int k;
		for (k = 0; k < (int)order; k++)
			sum += (uint32_t)(int32_t)coefficients[k] * (uint32_t)(previous[-k] - top);
		samples[j] = vpWrap((uint32_t)residual + (uint32_t)top + (uint32_t)((int32_t)(sum + half) >> denShift), shift);
		error = residual;
		if (error > 0) {
			for (k = (int)order - 1; k >= 0; k--) {
				int32_t difference = top - previous[-k];
				int32_t sign = (difference > 0) - (difference < 0);
				coefficients[k] = (int16_t)(coefficients[k] - sign);
				error = (int32_t)((uint32_t)error - (uint32_t)(order - (uint32_t)k) * (uint32_t)((int32_t)((uint32_t)sign * (uint32_t)difference) >> denShift));
				if (error <= 0)
					break;
			}
		}
		else if (error < 0) {
			for (k = (int)order - 1; k >= 0; k--) {
				int32_t difference = top - previous[-k];
				int32_t sign = (difference > 0) - (difference < 0);
				coefficients[k] = (int16_t)(coefficients[k] + sign);
				error = (int32_t)((uint32_t)error - (uint32_t)(order - (uint32_t)k) * (uint32_t)((int32_t)((0u - (uint32_t)sign) * (uint32_t)difference) >> denShift));
				if (error >= 0)
					break;
			}
		}
	}
}

/* decodeElement of alac-frame.ts: samples per channel, or a fault negated. */
static int32_t vpElement(const vpAlacConfig *config, vpBits *bits, uint32_t pair, vpScratch *scratch)
{
	uint32_t partial, bytesShifted, escape, samples, channel, i, shiftBits, sampleBits, kLimit;
	vpSkip(bits, 4 + 12);
	partial = vpRead(bits, 1);
	bytesShifted = vpRead(bits, 2);
	escape = vpRead(bits, 1);
	samples = partial ? vpRead(bits, 32) : config->frameLength;
	if (bits->overrun)
		return -VP_ALAC_TRUNCATED;
	if (bytesShifted == 3)
		return -VP_ALAC_BAD_SHIFT;
	if (samples > config->frameLength)
		return -VP_ALAC_TOO_MANY_SAMPLES;
	if (samples == 0)
		return -VP_ALAC_NO_SAMPLES;
	if (escape) {
		uint32_t depth = config->bitDepth;
		if ((uint64_t)bits->pos + (uint64_t)samples * pair * depth > bits->end)
			return -VP_ALAC_TRUNCATED;
		for (i = 0; i < samples; i++) {
			scratch->first[i] = vpReadSigned(bits, depth);
			if (pair == 2)
				scratch->second[i] = vpReadSigned(bits, depth);
		}
		scratch->mixBits = 0;
		scratch->mixRes = 0;
		scratch->shiftBits = 0;
		return (int32_t)samples;
	}
	scratch->mixBits = vpRead(bits, 8);
	scratch->mixRes = vpReadSigned(bits, 8);
	for (channel = 0; channel < pair; channel++) {
		uint32_t header = vpRead(bits, 8), predictor = vpRead(bits, 8), k;
		scratch->modes[channel] = header >> 4;
		scratch->denShifts[channel] = header & 15;
		scratch->pbFactors[channel] = predictor >> 5;
		scratch->orders[channel] = predictor & 31;
		for (k = 0; k < scratch->orders[channel]; k++)
			scratch->coefficients[channel][k] = (int16_t)vpReadSigned(bits, 16);
	}
	if (bits->overrun)
		return -VP_ALAC_TRUNCATED;
	shiftBits = bytesShifted * 8;
	scratch->shiftBits = shiftBits;
	if (shiftBits) {
		if ((uint64_t)bits->pos + (uint64_t)samples * pair * shiftBits > bits->end)
			return -VP_ALAC_TRUNCATED;
		for (i = 0; i < samples * pair; i++)
			scratch->shifted[i] = (int32_t)vpRead(bits, shiftBits);
	}
	sampleBits = config->bitDepth - shiftBits + pair - 1;
	/* kb 0 (ffmpeg's cookie of an all-verbatim stream): k is at least 1, as in the reference. */
	kLimit = config->kb ? config->kb : 1;
	for (channel = 0; channel < pair; channel++) {
		int32_t *buffer = channel ? scratch->second : scratch->first;
		uint32_t multiplier = (config->pb * scratch->pbFactors[channel]) >> 2;
		int fault = vpResiduals(bits, buffer, samples, sampleBits, multiplier, config->mb, kLimit);
		if (fault)
			return -fault;
		if (scratch->modes[channel] != 0)
			vpUnpredict(buffer, samples, scratch->coefficients[channel], 31, sampleBits, 0);
		vpUnpredict(buffer, samples, scratch->coefficients[channel], scratch->orders[channel], sampleBits, scratch->denShifts[channel]);
	}
	return (int32_t)samples;
}

/* writeElement of alac-frame.ts into 16-bit (sampleBytes 2) or 32-bit output. */
static void vpWrite(const vpScratch *scratch, void *output, uint32_t sampleBytes, uint32_t samples, uint32_t pair, uint32_t stride, uint32_t channelIndex, uint32_t outShift)
{
	const int32_t *first = scratch->first, *second = scratch->second, *shifted = scratch->shifted;
	uint32_t shiftBits = scratch->shiftBits, mixBits = scratch->mixBits & 31, i, at = channelIndex;
	int32_t mixRes = scratch->mixRes;
	int16_t *out16 = output;
	int32_t *out32 = output;
	for (i = 0; i < samples; i++, at += stride) {
		int32_t left = first[i], right;
		if (pair == 1) {
			if (shiftBits)
				left = (int32_t)(((uint32_t)left << shiftBits) | (uint32_t)shifted[i]);
			if (sampleBytes == 2)
				out16[at] = (int16_t)(left >> outShift);
			else
				out32[at] = left;
			continue;
		}
		right = second[i];
		if (mixRes != 0) {
			left = (int32_t)((uint32_t)first[i] + (uint32_t)second[i] - (uint32_t)((int32_t)((uint32_t)mixRes * (uint32_t)second[i]) >> mixBits));
			right = (int32_t)((uint32_t)left - (uint32_t)second[i]);
		}
		if (shiftBits) {
			left = (int32_t)(((uint32_t)left << shiftBits) | (uint32_t)shifted[2 * i]);
			right = (int32_t)(((uint32_t)right << shiftBits) | (uint32_t)shifted[2 * i + 1]);
		}
		if (sampleBytes == 2) {
			out16[at] = (int16_t)(left >> outShift);
			out16[at + 1] = (int16_t)(right >> outShift);
		}
		else {
			out32[at] = left;
			out32[at + 1] = right;
		}
	}
}

/* decodeAlacFrame of alac-frame.ts: samples per channel, or a fault negated. */
static int32_t vpFrame(const vpAlacConfig *config, vpBits *bits, void *output, uint32_t sampleBytes, vpScratch *scratch)
{
	uint32_t channelIndex = 0, channels = config->numChannels;
	uint32_t outShift = (sampleBytes == 2) ? config->bitDepth - 16 : 0;
	int32_t frameSamples = -1;
	while (channelIndex < channels) {
		uint32_t tag = vpRead(bits, 3), pair;
		int32_t samples;
		if (bits->overrun)
			return -VP_ALAC_TRUNCATED;
		if (tag == VP_END)
			break;
		if (tag == VP_FIL) {
			uint32_t count = vpRead(bits, 4);
			if (count == 15)
				count += vpRead(bits, 8) - 1;
			vpSkip(bits, count * 8);
			if (bits->overrun)
				return -VP_ALAC_TRUNCATED;
			continue;
		}
		if (tag == VP_DSE) {
			uint32_t aligned, count;
			vpSkip(bits, 4);
			aligned = vpRead(bits, 1);
			count = vpRead(bits, 8);
			if (count == 255)
				count += vpRead(bits, 8);
			if (aligned)
				vpSkip(bits, (8 - (bits->pos & 7)) & 7);
			vpSkip(bits, count * 8);
			if (bits->overrun)
				return -VP_ALAC_TRUNCATED;
			continue;
		}
		if ((tag == VP_CCE) || (tag == VP_PCE))
			return -VP_ALAC_UNSUPPORTED_ELEMENT;
		pair = (tag == VP_CPE) ? 2 : 1;
		samples = vpElement(config, bits, pair, scratch);
		if (samples < 0)
			return samples;
		if ((frameSamples >= 0) && (samples != frameSamples))
			return -VP_ALAC_SAMPLE_COUNT_MISMATCH;
		frameSamples = samples;
		if (channelIndex + pair > channels)
			return -VP_ALAC_TOO_MANY_CHANNELS;
		vpWrite(scratch, output, sampleBytes, (uint32_t)samples, pair, channels, channelIndex, outShift);
		channelIndex += pair;
	}
	if (channelIndex < channels)
		return -VP_ALAC_MISSING_CHANNELS;
	return frameSamples;
}

/*
 * alacDecode(cookie, packet, output, sampleBytes, work): decodes one packet of a stream whose
 * config is the 24-byte ALACSpecificConfig `cookie` into `output` (the bytes of an Int16Array
 * when sampleBytes is 2, of an Int32Array when 4), interleaved. Returns the samples per channel,
 * or a fault code negated (alac-faults.ts). RangeError for a config the reference's
 * checkAlacConfig refuses, an output smaller than a frame, or a work buffer smaller than 16 bytes
 * per sample of the frame length or not 4-byte aligned.
 */
void xs_vp_alac_decode(xsMachine *the)
{
	vpNeedArgs(the, 5, "alacDecode(cookie, packet, output, sampleBytes, work)");
	void *cookieData, *packetData, *outputData, *workData;
	xsUnsignedValue cookieLength, packetLength, outputLength, workLength;
	xsIntegerValue sampleBytes = xsmcToInteger(xsArg(3));
	const uint8_t *cookie;
	vpAlacConfig config;
	vpBits bits;
	vpScratch scratch;
	uint32_t frameSamples;
	xsmcGetBufferReadable(xsArg(0), &cookieData, &cookieLength);
	xsmcGetBufferReadable(xsArg(1), &packetData, &packetLength);
	xsmcGetBufferWritable(xsArg(2), &outputData, &outputLength);
	xsmcGetBufferWritable(xsArg(4), &workData, &workLength);
	if (cookieLength != VP_ALAC_COOKIE_BYTES)
		xsRangeError("alacDecode: cookie of %u bytes, expected %u", (unsigned)cookieLength, (unsigned)VP_ALAC_COOKIE_BYTES);
	cookie = cookieData;
	config.frameLength = ((uint32_t)cookie[0] << 24) | ((uint32_t)cookie[1] << 16) | ((uint32_t)cookie[2] << 8) | cookie[3];
	config.bitDepth = cookie[5];
	config.pb = cookie[6];
	config.mb = cookie[7];
	config.kb = cookie[8];
	config.numChannels = cookie[9];
	if ((config.bitDepth != 16) && (config.bitDepth != 20) && (config.bitDepth != 24))
		xsRangeError("alacDecode: bit depth %u", (unsigned)config.bitDepth);
	if ((config.frameLength < 1) || (config.frameLength > VP_ALAC_MAX_FRAME_LENGTH) || (config.numChannels < 1) || (config.numChannels > VP_ALAC_MAX_CHANNELS))
		xsRangeError("alacDecode: frame length %u, %u channels", (unsigned)config.frameLength, (unsigned)config.numChannels);
	if ((sampleBytes != 2) && (sampleBytes != 4))
		xsRangeError("alacDecode: %d bytes per sample, expected 2 or 4", (int)sampleBytes);
	frameSamples = config.frameLength * config.numChannels;
	if ((outputLength / (xsUnsignedValue)sampleBytes < frameSamples) || ((uintptr_t)outputData % (uintptr_t)sampleBytes))
		xsRangeError("alacDecode: output of %u bytes, a frame needs %u", (unsigned)outputLength, (unsigned)(frameSamples * (uint32_t)sampleBytes));
	if ((workLength < (xsUnsignedValue)config.frameLength * VP_ALAC_WORK_PER_SAMPLE) || ((uintptr_t)workData & 3))
		xsRangeError("alacDecode: work buffer of %u bytes, expected %u, 4-byte aligned", (unsigned)workLength, (unsigned)(config.frameLength * VP_ALAC_WORK_PER_SAMPLE));
	scratch.first = workData;
	scratch.second = scratch.first + config.frameLength;
	scratch.shifted = scratch.second + config.frameLength;
	bits.bytes = packetData;
	bits.length = (uint32_t)packetLength;
	bits.pos = 0;
	bits.end = (uint32_t)packetLength * 8;
	bits.overrun = 0;
	xsmcSetInteger(xsResult, vpFrame(&config, &bits, outputData, (uint32_t)sampleBytes, &scratch));
}
