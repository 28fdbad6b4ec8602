/*
 * H.264 decoding for screen mirroring on Linux media boards and the Linux simulator:
 * thin xsmc bindings of libavcodec (the decoder: `h264_v4l2m2m`, the board's hardware decoder
 * through V4L2 mem2mem, or the `h264` software decoder) and libswscale (each picture converted
 * to the screen's pixel format and scaled to fit the area it is drawn in). No codec of our own.
 *
 * A decoder is a host object; every function takes it first. Decoded pictures wait, converted,
 * in a ring of at most `pending` slots allocated at open (the area's size each: what a board
 * holds never depends on the stream's resolution), until the caller copies one out at its
 * presentation time. Access units go in with their presentation time (host monotonic ms), which
 * libavcodec carries to the picture through any reordering. Errors throw, naming the cause.
 *
 * Argument pointers are used only before anything here allocates in the XS heap (the access
 * unit is copied into a packet first), so they stay valid for the call.
 */

#include "xsmc.h"
#include "../vp-args.h"

#include <math.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

/* The screen pixel formats the ring can hold (commodetto's RGB565LE, RGB565BE, Gray256). */
typedef struct {
	const char *name;
	enum AVPixelFormat format;
	int bytesPerPixel;
} vpPixelFormat;

static const vpPixelFormat gPixelFormats[] = {
	{ "rgb565le", AV_PIX_FMT_RGB565LE, 2 },
	{ "rgb565be", AV_PIX_FMT_RGB565BE, 2 },
	{ "gray8", AV_PIX_FMT_GRAY8, 1 },
};

#define MAX_PENDING 32
#define MAX_AREA_SIDE 4096

/*
 * Bytes past a picture's last row that libswscale may write. Its RGB565 output writes pixels in
 * pairs, so a picture of odd width ends 2 bytes past its last byte (seen under valgrind: 159 wide,
 * "Invalid write of size 2" just after the block); its SIMD paths store whole vector registers
 * where the rows allow. Rows here are packed (stride = width x bytes per pixel), so only the last
 * row can run past its slot: each slot has this much more, the widest store (AVX-512, 64 bytes).
 */
#define SWSCALE_PADDING 64

typedef struct {
	double time;
	int width;
	int height;
	uint8_t *pixels;
} vpPicture;

typedef struct {
	const AVCodec *codec;
	AVCodecContext *context;
	AVPacket *packet;
	AVFrame *frame;
	struct SwsContext *scaler;
	const vpPixelFormat *pixelFormat;
	int areaWidth;
	int areaHeight;
	int capacity;
	int first;
	int count;
	vpPicture ring[MAX_PENDING];
} vpVideoDecoder;

static void vpVideoFree(vpVideoDecoder *decoder)
{
	int i;
	avcodec_free_context(&decoder->context);
	av_packet_free(&decoder->packet);
	av_frame_free(&decoder->frame);
	sws_freeContext(decoder->scaler);
	for (i = 0; i < MAX_PENDING; i++)
		av_free(decoder->ring[i].pixels);
	av_free(decoder);
}

void xs_vp_video_destructor(void *data)
{
	if (data)
		vpVideoFree(data);
}

static vpVideoDecoder *vpVideoGet(xsMachine *the)
{
	/* Every caller checked its arguments first (vpNeedArgs): the decoder is the first. */
	vpVideoDecoder *decoder = xsmcGetHostDataValidate(xsArg(0), (void *)xs_vp_video_destructor);
	if (!decoder)
		xsUnknownError("video decoder: closed");
	return decoder;
}

/* Throws with libavcodec's words for `error`, after what was being done. */
static void vpAvError(xsMachine *the, const char *doing, int error)
{
	char words[AV_ERROR_MAX_STRING_SIZE];
	av_strerror(error, words, sizeof(words));
	xsUnknownError("video decoder: %s: %s", doing, words);
}

/* A new codec context; `extradata` (Annex B parameter sets, or none) is copied, padded as libavcodec wants. */
static int vpVideoOpenContext(vpVideoDecoder *decoder, const uint8_t *extradata, int extradataSize)
{
	AVCodecContext *context = avcodec_alloc_context3(decoder->codec);
	int result;
	if (!context)
		return AVERROR(ENOMEM);
	context->pkt_timebase = (AVRational){ 1, 1000 };
	/* Mirroring wants each picture out as soon as it decodes: no frame threads (they hold
	 * thread_count pictures back), and no waiting for reordering the stream does not use. */
	context->thread_count = 1;
	context->flags |= AV_CODEC_FLAG_LOW_DELAY;
	if (extradataSize > 0) {
		context->extradata = av_mallocz(extradataSize + AV_INPUT_BUFFER_PADDING_SIZE);
		if (!context->extradata) {
			avcodec_free_context(&context);
			return AVERROR(ENOMEM);
		}
		memcpy(context->extradata, extradata, extradataSize);
		context->extradata_size = extradataSize;
	}
	result = avcodec_open2(context, decoder->codec, NULL);
	if (result < 0) {
		avcodec_free_context(&context);
		return result;
	}
	avcodec_free_context(&decoder->context);
	decoder->context = context;
	return 0;
}

/* The picture's size on the screen: its display aspect (sample aspect applied) fit in the area. */
static void vpFit(const vpVideoDecoder *decoder, const AVFrame *frame, int *width, int *height)
{
	double displayWidth = frame->width;
	double scale;
	if ((frame->sample_aspect_ratio.num > 0) && (frame->sample_aspect_ratio.den > 0))
		displayWidth = displayWidth * frame->sample_aspect_ratio.num / frame->sample_aspect_ratio.den;
	scale = (double)decoder->areaWidth / displayWidth;
	if ((double)decoder->areaHeight / frame->height < scale)
		scale = (double)decoder->areaHeight / frame->height;
	*width = (int)(displayWidth * scale + 0.5);
	*height = (int)(frame->height * scale + 0.5);
	if (*width < 1) *width = 1;
	if (*height < 1) *height = 1;
	if (*width > decoder->areaWidth) *width = decoder->areaWidth;
	if (*height > decoder->areaHeight) *height = decoder->areaHeight;
}

/* Converts decoder->frame into the next free slot of the ring (the caller checked there is one). */
static void vpStore(xsMachine *the, vpVideoDecoder *decoder)
{
	AVFrame *frame = decoder->frame;
	vpPicture *picture = &decoder->ring[(decoder->first + decoder->count) % decoder->capacity];
	uint8_t *planes[4] = { picture->pixels, NULL, NULL, NULL };
	int strides[4] = { 0, 0, 0, 0 };
	int width, height, rows;
	if ((frame->width <= 0) || (frame->height <= 0))
		xsUnknownError("video decoder: a picture of %dx%d", frame->width, frame->height);
	vpFit(decoder, frame, &width, &height);
	decoder->scaler = sws_getCachedContext(decoder->scaler, frame->width, frame->height, frame->format,
		width, height, decoder->pixelFormat->format, SWS_BILINEAR, NULL, NULL, NULL);
	if (!decoder->scaler)
		xsUnknownError("video decoder: libswscale cannot convert %s %dx%d to %s %dx%d",
			av_get_pix_fmt_name(frame->format) ? av_get_pix_fmt_name(frame->format) : "?", frame->width, frame->height,
			decoder->pixelFormat->name, width, height);
	strides[0] = width * decoder->pixelFormat->bytesPerPixel;
	rows = sws_scale(decoder->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
	if (rows != height)
		xsUnknownError("video decoder: libswscale wrote %d rows of %d", rows, height);
	/* best_effort_timestamp: the packet's time, carried through reordering (pts when it has one). */
	picture->time = (frame->best_effort_timestamp != AV_NOPTS_VALUE) ? (double)frame->best_effort_timestamp
		: (frame->pts != AV_NOPTS_VALUE) ? (double)frame->pts : 0;
	picture->width = width;
	picture->height = height;
	decoder->count++;
}

/* Takes every decoded picture libavcodec has, while the ring has room (the rest waits in libavcodec). */
static void vpReceive(xsMachine *the, vpVideoDecoder *decoder)
{
	while (decoder->count < decoder->capacity) {
		int result = avcodec_receive_frame(decoder->context, decoder->frame);
		if ((result == AVERROR(EAGAIN)) || (result == AVERROR_EOF))
			return;
		if (result < 0)
			vpAvError(the, "decoding", result);
		vpStore(the, decoder);
		av_frame_unref(decoder->frame);
	}
}

/*
 * open(codec, areaWidth, areaHeight, pixelFormat, pending): a decoder. `codec` is a libavcodec
 * decoder name ("h264_v4l2m2m", "h264"); a name this libavcodec does not have throws (the
 * caller falls back). The V4L2 decoder opens its device in avcodec_open2, so a board without
 * one throws here too. Pictures are scaled to fit areaWidth x areaHeight.
 */
void xs_vp_video_open(xsMachine *the)
{
	char name[32];
	char format[16];
	vpNeedArgs(the, 5, "video decoder: open(codec, areaWidth, areaHeight, pixelFormat, pending)");
	int areaWidth = xsmcToInteger(xsArg(1));
	int areaHeight = xsmcToInteger(xsArg(2));
	int pending = xsmcToInteger(xsArg(4));
	const vpPixelFormat *pixelFormat = NULL;
	vpVideoDecoder *decoder;
	size_t i;
	int result;
	/* The host object first: nothing can throw between the decoder's allocation and its ownership. */
	xsResult = xsNewHostObject(xs_vp_video_destructor);
	xsmcToStringBuffer(xsArg(0), name, sizeof(name));
	xsmcToStringBuffer(xsArg(3), format, sizeof(format));
	for (i = 0; i < sizeof(gPixelFormats) / sizeof(gPixelFormats[0]); i++) {
		if (!strcmp(gPixelFormats[i].name, format))
			pixelFormat = &gPixelFormats[i];
	}
	if (!pixelFormat)
		xsRangeError("video decoder: pixel format %s not supported (rgb565le, rgb565be, gray8)", format);
	if ((areaWidth < 1) || (areaHeight < 1) || (areaWidth > MAX_AREA_SIDE) || (areaHeight > MAX_AREA_SIDE))
		xsRangeError("video decoder: area %dx%d (1 to %d a side)", areaWidth, areaHeight, MAX_AREA_SIDE);
	if ((pending < 1) || (pending > MAX_PENDING))
		xsRangeError("video decoder: %d pictures pending (1 to %d)", pending, MAX_PENDING);

	decoder = av_mallocz(sizeof(vpVideoDecoder));
	if (!decoder)
		xsUnknownError("video decoder: out of memory");
	decoder->pixelFormat = pixelFormat;
	decoder->areaWidth = areaWidth;
	decoder->areaHeight = areaHeight;
	decoder->capacity = pending;
	decoder->codec = avcodec_find_decoder_by_name(name);
	if (!decoder->codec || (decoder->codec->id != AV_CODEC_ID_H264)) {
		vpVideoFree(decoder);
		xsUnknownError("video decoder: libavcodec has no H.264 decoder named %s", name);
	}
	decoder->packet = av_packet_alloc();
	decoder->frame = av_frame_alloc();
	result = (decoder->packet && decoder->frame) ? 0 : AVERROR(ENOMEM);
	for (i = 0; (result == 0) && (i < (size_t)pending); i++) {
		decoder->ring[i].pixels = av_malloc((size_t)areaWidth * areaHeight * pixelFormat->bytesPerPixel + SWSCALE_PADDING);
		if (!decoder->ring[i].pixels)
			result = AVERROR(ENOMEM);
	}
	if (result == 0)
		result = vpVideoOpenContext(decoder, NULL, 0);
	if (result < 0) {
		char words[AV_ERROR_MAX_STRING_SIZE];
		av_strerror(result, words, sizeof(words));
		vpVideoFree(decoder);
		xsUnknownError("video decoder: opening %s: %s", name, words);
	}
	xsmcSetHostData(xsResult, decoder);
}

/* name(decoder): the libavcodec decoder in use ("h264_v4l2m2m", "h264"). */
void xs_vp_video_name(xsMachine *the)
{
	vpNeedArgs(the, 1, "video decoder: name(decoder)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	xsmcSetString(xsResult, (char *)decoder->codec->name);
}

/*
 * configure(decoder, parameterSets): a new stream (or new codec data): the decoder opens again
 * with the Annex B SPS and PPS as its extradata; pictures pending are dropped.
 */
void xs_vp_video_configure(xsMachine *the)
{
	vpNeedArgs(the, 2, "video decoder: configure(decoder, parameterSets)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	void *data;
	xsUnsignedValue length;
	int result;
	xsmcGetBufferReadable(xsArg(1), &data, &length);
	if (length > (1 << 16))
		xsRangeError("video decoder: %u bytes of parameter sets (at most 65536)", (unsigned)length);
	result = vpVideoOpenContext(decoder, data, (int)length);
	if (result < 0)
		vpAvError(the, "configuring", result);
	decoder->first = 0;
	decoder->count = 0;
}

/*
 * push(decoder, accessUnit, time): decodes one Annex B access unit to be shown at `time`; returns
 * how many pictures are pending then. Throws when the ring is full (the caller shows or drops
 * one first) and when libavcodec refuses the data (naming its reason).
 */
void xs_vp_video_push(xsMachine *the)
{
	vpNeedArgs(the, 3, "video decoder: push(decoder, accessUnit, time)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	double time = xsmcToNumber(xsArg(2));
	void *data;
	xsUnsignedValue length;
	int result;
	if (decoder->count >= decoder->capacity)
		xsRangeError("video decoder: %d pictures pending (the most): show or drop one first", decoder->count);
	xsmcGetBufferReadable(xsArg(1), &data, &length);
	if ((length == 0) || (length > (64u << 20)))
		xsRangeError("video decoder: an access unit of %u bytes", (unsigned)length);
	/* A previous push that threw while receiving left its packet: av_new_packet would not free it. */
	av_packet_unref(decoder->packet);
	result = av_new_packet(decoder->packet, (int)length);
	if (result < 0)
		vpAvError(the, "packet", result);
	memcpy(decoder->packet->data, data, length);
	decoder->packet->pts = (int64_t)time;
	result = avcodec_send_packet(decoder->context, decoder->packet);
	if (result == AVERROR(EAGAIN)) {
		/* libavcodec holds pictures not taken yet: take them, then it takes the packet. */
		vpReceive(the, decoder);
		result = avcodec_send_packet(decoder->context, decoder->packet);
		if (result == AVERROR(EAGAIN)) {
			av_packet_unref(decoder->packet);
			xsRangeError("video decoder: %d pictures pending and more in the decoder: show or drop one first", decoder->count);
		}
	}
	av_packet_unref(decoder->packet);
	if (result < 0)
		vpAvError(the, "decoding", result);
	vpReceive(the, decoder);
	xsmcSetInteger(xsResult, decoder->count);
}

/*
 * peek(decoder, info): how many pictures are pending (after taking what libavcodec decoded since);
 * when some are, info (an ArrayBuffer of 24 bytes: xsmc takes no Float64Array) gets the oldest
 * one's time, width and height (its size on the screen) as three doubles; an info of 32 bytes
 * also the time of the picture after it (NaN: none), so a late picture can be dropped unread.
 */
void xs_vp_video_peek(xsMachine *the)
{
	vpNeedArgs(the, 2, "video decoder: peek(decoder, info)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	void *data;
	xsUnsignedValue length;
	double *info;
	vpPicture *picture;
	vpReceive(the, decoder);
	xsmcSetInteger(xsResult, decoder->count);
	if (decoder->count == 0)
		return;
	xsmcGetBufferWritable(xsArg(1), &data, &length);
	if (length < 3 * sizeof(double))
		xsRangeError("video decoder: info of %u bytes, 24 needed", (unsigned)length);
	info = data;
	picture = &decoder->ring[decoder->first];
	info[0] = picture->time;
	info[1] = picture->width;
	info[2] = picture->height;
	if (length >= 4 * sizeof(double))
		info[3] = (decoder->count > 1) ? decoder->ring[(decoder->first + 1) % decoder->capacity].time : NAN;
}

static void vpDropOldest(vpVideoDecoder *decoder)
{
	decoder->first = (decoder->first + 1) % decoder->capacity;
	decoder->count--;
}

/*
 * read(decoder, pixels): copies the oldest pending picture into pixels (its width x height in
 * the screen's pixel format, rows packed) and drops it from the ring; returns its time.
 */
void xs_vp_video_read(xsMachine *the)
{
	vpNeedArgs(the, 2, "video decoder: read(decoder, pixels)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	void *data;
	xsUnsignedValue length;
	vpPicture *picture;
	size_t bytes;
	if (decoder->count == 0)
		xsUnknownError("video decoder: no picture pending");
	picture = &decoder->ring[decoder->first];
	bytes = (size_t)picture->width * picture->height * decoder->pixelFormat->bytesPerPixel;
	xsmcGetBufferWritable(xsArg(1), &data, &length);
	if (length < bytes)
		xsRangeError("video decoder: pixels of %u bytes, the picture takes %u", (unsigned)length, (unsigned)bytes);
	memcpy(data, picture->pixels, bytes);
	xsmcSetNumber(xsResult, picture->time);
	vpDropOldest(decoder);
}

/* drop(decoder): drops the oldest pending picture (late: not shown). */
void xs_vp_video_drop(xsMachine *the)
{
	vpNeedArgs(the, 1, "video decoder: drop(decoder)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	if (decoder->count == 0)
		xsUnknownError("video decoder: no picture pending");
	vpDropOldest(decoder);
}

/* flush(decoder): the stream ended or jumps: libavcodec forgets its references, pending pictures go. */
void xs_vp_video_flush(xsMachine *the)
{
	vpNeedArgs(the, 1, "video decoder: flush(decoder)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	avcodec_flush_buffers(decoder->context);
	decoder->first = 0;
	decoder->count = 0;
}

/* close(decoder): frees libavcodec's decoder and the ring now (the host object stays, closed). */
void xs_vp_video_close(xsMachine *the)
{
	vpNeedArgs(the, 1, "video decoder: close(decoder)");
	vpVideoDecoder *decoder = vpVideoGet(the);
	xsmcSetHostData(xsArg(0), NULL);
	vpVideoFree(decoder);
}
