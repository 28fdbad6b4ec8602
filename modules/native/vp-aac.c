/*
 * AAC decoding for realtime audio where the host has libavcodec (the Linux simulator, Linux
 * media boards, the XS test host): a thin xsmc binding of libavcodec's `aac` decoder. No codec
 * of our own. A decoder is a host object opened with the stream's AudioSpecificConfig (ISO
 * 14496-3 1.6.2.1: from the SDP fmtp's `config=`, or the one a session stream's type implies) as
 * extradata; each call decodes one raw access unit (no ADTS header, no RFC 3640 AU headers)
 * into interleaved 16-bit samples. AAC-LC, and AAC-ELD as far as this libavcodec decodes it
 * (FFmpeg 5.1: ELD without low-delay SBR).
 *
 * libavcodec's `aac` decoder gives planar float; each sample becomes 16-bit the way libswresample
 * does it (what `ffmpeg -f s16le` writes): lrintf(x * 32768), clipped to the 16-bit range, so
 * the output equals ffmpeg's own decode sample for sample.
 *
 * Bounded: the caller passes the output (the wrapper sizes it once for the most a unit decodes
 * to); a unit that decodes to more, or to another channel count or rate than the config said
 * (garbage can carry a program config element, or implicit SBR that doubles the rate), throws
 * instead of writing past it or handing the sink samples of another shape. Errors throw naming
 * the cause: Error for what the data does (the wrapper makes it an AudioDecodeError), TypeError
 * and RangeError for a wrong call.
 *
 * The unit's bytes are copied into a libavcodec packet before anything else, and the output's
 * pointer is taken after decoding: nothing here allocates in the XS heap in between.
 */

#include "xsmc.h"
#include "vp-args.h"

#include <math.h>
#include <string.h>

#include <libavcodec/avcodec.h>

/* An AudioSpecificConfig is a few bytes (2 for AAC-LC, 4 for AAC-ELD); more is not one. */
#define VP_AAC_MAX_CONFIG 64
#define VP_AAC_MAX_CHANNELS 8
#define VP_AAC_MIN_RATE 7350
#define VP_AAC_MAX_RATE 96000
/* An access unit is at most 6144 bits per channel (ISO 14496-3 4.5.3.1). */
#define VP_AAC_MAX_UNIT (768 * VP_AAC_MAX_CHANNELS)

typedef struct {
	const AVCodec *codec;
	AVCodecContext *context;
	AVPacket *packet;
	AVFrame *frame;
	int sampleRate;
	int channels;
	/* The AudioSpecificConfig, kept to open the context again on flush. */
	uint8_t config[VP_AAC_MAX_CONFIG];
	int configSize;
} vpAacDecoder;

static void vpAacFree(vpAacDecoder *decoder)
{
	avcodec_free_context(&decoder->context);
	av_packet_free(&decoder->packet);
	av_frame_free(&decoder->frame);
	av_free(decoder);
}

void xs_vp_aac_destructor(void *data)
{
	if (data)
		vpAacFree(data);
}

static vpAacDecoder *vpAacGet(xsMachine *the)
{
	/* Every caller checked its arguments first (vpNeedArgs): the decoder is the first. */
	vpAacDecoder *decoder = xsmcGetHostDataValidate(xsArg(0), (void *)xs_vp_aac_destructor);
	if (!decoder)
		xsUnknownError("aac decoder: closed");
	return decoder;
}

/* Throws with libavcodec's words for `error`, after what was being done. */
static void vpAacAvError(xsMachine *the, const char *doing, int error)
{
	char words[AV_ERROR_MAX_STRING_SIZE];
	av_strerror(error, words, sizeof(words));
	xsUnknownError("aac decoder: %s: %s", doing, words);
}

/*
 * A new codec context opened with the config as extradata (copied, padded as libavcodec wants),
 * in place of the decoder's context. A context opened anew is the only way back to a decoder's
 * first state: the aac decoder's flush zeroes only the overlap, and keeps the rest (the noise
 * generator of perceptual noise substitution among it), so the clip decoded after
 * avcodec_flush_buffers differed from its decode from the start in 10300 of 47104 samples.
 */
static int vpAacOpenContext(vpAacDecoder *decoder)
{
	AVCodecContext *context = avcodec_alloc_context3(decoder->codec);
	int result;
	if (!context)
		return AVERROR(ENOMEM);
	context->extradata = av_mallocz(decoder->configSize + AV_INPUT_BUFFER_PADDING_SIZE);
	if (!context->extradata) {
		avcodec_free_context(&context);
		return AVERROR(ENOMEM);
	}
	memcpy(context->extradata, decoder->config, decoder->configSize);
	context->extradata_size = decoder->configSize;
	context->thread_count = 1;
	result = avcodec_open2(context, decoder->codec, NULL);
	if (result < 0) {
		avcodec_free_context(&context);
		return result;
	}
	avcodec_free_context(&decoder->context);
	decoder->context = context;
	return 0;
}

/*
 * aacOpen(config, sampleRate, channels): a decoder of the stream whose AudioSpecificConfig is
 * `config`. Throws when libavcodec refuses the config, or when it describes another rate or
 * channel count than the stream's (the sink is opened with the stream's).
 */
void xs_vp_aac_open(xsMachine *the)
{
	vpNeedArgs(the, 3, "aacOpen(config, sampleRate, channels)");
	int sampleRate = xsmcToInteger(xsArg(1));
	int channels = xsmcToInteger(xsArg(2));
	const AVCodec *codec;
	vpAacDecoder *decoder;
	void *data;
	xsUnsignedValue length;
	int result;
	/* The host object first: nothing can throw between the decoder's allocation and its ownership. */
	xsResult = xsNewHostObject(xs_vp_aac_destructor);
	if ((sampleRate < VP_AAC_MIN_RATE) || (sampleRate > VP_AAC_MAX_RATE))
		xsRangeError("aac decoder: sample rate %d (%d to %d)", sampleRate, VP_AAC_MIN_RATE, VP_AAC_MAX_RATE);
	if ((channels < 1) || (channels > VP_AAC_MAX_CHANNELS))
		xsRangeError("aac decoder: %d channels (1 to %d)", channels, VP_AAC_MAX_CHANNELS);
	xsmcGetBufferReadable(xsArg(0), &data, &length);
	if ((length < 2) || (length > VP_AAC_MAX_CONFIG))
		xsRangeError("aac decoder: a config of %u bytes (2 to %d)", (unsigned)length, VP_AAC_MAX_CONFIG);
	codec = avcodec_find_decoder(AV_CODEC_ID_AAC);
	if (!codec)
		xsUnknownError("aac decoder: libavcodec has no AAC decoder");
	decoder = av_mallocz(sizeof(vpAacDecoder));
	if (!decoder)
		xsUnknownError("aac decoder: out of memory");
	decoder->codec = codec;
	decoder->sampleRate = sampleRate;
	decoder->channels = channels;
	memcpy(decoder->config, data, length);
	decoder->configSize = (int)length;
	decoder->packet = av_packet_alloc();
	decoder->frame = av_frame_alloc();
	result = (decoder->packet && decoder->frame) ? 0 : AVERROR(ENOMEM);
	if (result == 0)
		result = vpAacOpenContext(decoder);
	if (result < 0) {
		char words[AV_ERROR_MAX_STRING_SIZE];
		av_strerror(result, words, sizeof(words));
		vpAacFree(decoder);
		xsUnknownError("aac decoder: opening with the config: %s", words);
	}
	/* libavcodec's aac decoder sets the channels from the config at open, the rate only with the
	 * first frame (checked in aacDecode); whichever it knows must be the stream's. */
	if (((decoder->context->sample_rate != 0) && (decoder->context->sample_rate != sampleRate)) || (decoder->context->ch_layout.nb_channels != channels)) {
		int configRate = decoder->context->sample_rate;
		int configChannels = decoder->context->ch_layout.nb_channels;
		vpAacFree(decoder);
		xsUnknownError("aac decoder: the config describes %d channels (rate %d); the stream is %d Hz, %d channels", configChannels, configRate, sampleRate, channels);
	}
	xsmcSetHostData(xsResult, decoder);
}

/* One float sample to 16 bits as libswresample converts (av_clip_int16(lrintf(x * 32768))); NaN is silence. */
static int16_t vpAacSample(float x)
{
	float scaled = x * 32768.0f;
	if (scaled != scaled)
		return 0;
	if (scaled >= 32767.0f)
		return 32767;
	if (scaled <= -32768.0f)
		return -32768;
	return (int16_t)lrintf(scaled);
}

/* Writes the frame interleaved at output[0, frames x channels); the caller checked the size. */
static void vpAacInterleave(const AVFrame *frame, int channels, int16_t *output)
{
	int frames = frame->nb_samples;
	int c, i;
	if (frame->format == AV_SAMPLE_FMT_FLTP) {
		for (c = 0; c < channels; c++) {
			const float *plane = (const float *)frame->extended_data[c];
			for (i = 0; i < frames; i++)
				output[i * channels + c] = vpAacSample(plane[i]);
		}
	} else {
		/* AV_SAMPLE_FMT_FLT, checked by the caller. */
		const float *samples = (const float *)frame->extended_data[0];
		for (i = 0; i < frames * channels; i++)
			output[i] = vpAacSample(samples[i]);
	}
}

/*
 * aacDecode(decoder, unit, output): decodes one raw access unit into output (the bytes of an
 * Int16Array), interleaved; returns the frames (samples per channel) written. Throws when
 * libavcodec refuses the unit, or it decodes to another shape than the stream's or more than
 * output holds.
 */
void xs_vp_aac_decode(xsMachine *the)
{
	vpNeedArgs(the, 3, "aacDecode(decoder, unit, output)");
	vpAacDecoder *decoder = vpAacGet(the);
	void *data;
	xsUnsignedValue length;
	int16_t *output;
	size_t written = 0;
	int result;
	xsmcGetBufferReadable(xsArg(1), &data, &length);
	if ((length == 0) || (length > VP_AAC_MAX_UNIT))
		xsRangeError("aac decoder: an access unit of %u bytes (1 to %d)", (unsigned)length, VP_AAC_MAX_UNIT);
	/* A previous call that threw left its packet: av_new_packet would not free it. */
	av_packet_unref(decoder->packet);
	result = av_new_packet(decoder->packet, (int)length);
	if (result < 0)
		vpAacAvError(the, "packet", result);
	memcpy(decoder->packet->data, data, length);
	result = avcodec_send_packet(decoder->context, decoder->packet);
	av_packet_unref(decoder->packet);
	if (result < 0)
		vpAacAvError(the, "decoding", result);
	xsmcGetBufferWritable(xsArg(2), &data, &length);
	if ((uintptr_t)data % sizeof(int16_t))
		xsRangeError("aac decoder: output is not 2-byte aligned");
	output = data;
	for (;;) {
		const AVFrame *frame = decoder->frame;
		size_t samples;
		result = avcodec_receive_frame(decoder->context, decoder->frame);
		if ((result == AVERROR(EAGAIN)) || (result == AVERROR_EOF))
			break;
		if (result < 0)
			vpAacAvError(the, "decoding", result);
		if ((frame->sample_rate != decoder->sampleRate) || (frame->ch_layout.nb_channels != decoder->channels)) {
			int rate = frame->sample_rate;
			int channels = frame->ch_layout.nb_channels;
			av_frame_unref(decoder->frame);
			xsUnknownError("aac decoder: the unit decodes to %d Hz, %d channels; the stream is %d Hz, %d channels", rate, channels, decoder->sampleRate, decoder->channels);
		}
		if ((frame->format != AV_SAMPLE_FMT_FLTP) && (frame->format != AV_SAMPLE_FMT_FLT)) {
			int format = frame->format;
			av_frame_unref(decoder->frame);
			xsUnknownError("aac decoder: libavcodec gave sample format %d, not float", format);
		}
		samples = (size_t)frame->nb_samples * decoder->channels;
		if ((written + samples) * sizeof(int16_t) > length) {
			av_frame_unref(decoder->frame);
			xsUnknownError("aac decoder: the unit decodes to more than the output's %u samples", (unsigned)(length / sizeof(int16_t)));
		}
		vpAacInterleave(frame, decoder->channels, output + written);
		written += samples;
		av_frame_unref(decoder->frame);
	}
	xsmcSetInteger(xsResult, (xsIntegerValue)(written / decoder->channels));
}

/*
 * aacFlush(decoder): the stream jumps (a flush, lost packets): the decoder starts again as
 * opened (the previous unit's overlap forgotten), so what follows decodes as from a stream's start.
 */
void xs_vp_aac_flush(xsMachine *the)
{
	vpNeedArgs(the, 1, "aacFlush(decoder)");
	vpAacDecoder *decoder = vpAacGet(the);
	int result = vpAacOpenContext(decoder);
	if (result < 0)
		vpAacAvError(the, "opening again", result);
}

/* aacClose(decoder): frees libavcodec's decoder now (the host object stays, closed). */
void xs_vp_aac_close(xsMachine *the)
{
	vpNeedArgs(the, 1, "aacClose(decoder)");
	vpAacDecoder *decoder = vpAacGet(the);
	xsmcSetHostData(xsArg(0), NULL);
	vpAacFree(decoder);
}
