// The contract of the natives in video-decoder.c (libavcodec and libswscale), one function each.
// On Moddable they are the module "modules/native/video-decoder/video-decoder" (video-decoder.js, bound by
// xsc); in the XS test host the same C functions are installed on a global object
// (xs-host/natives.c). Failures throw an Error naming the cause (libavcodec's words included).

/** A decoder: a host object, opaque to JavaScript. */
export type DecoderHandle = object & { readonly __videoDecoder: never };

/** The pixel formats the natives convert to (commodetto's RGB565LE, RGB565BE, Gray256). */
export type NativePixelFormat = 'rgb565le' | 'rgb565be' | 'gray8';

export interface NativeVideoDecoder {
  /**
   * A decoder by libavcodec name ("h264_v4l2m2m": the board's V4L2 hardware decoder; "h264": the
   * software one) that scales each picture to fit areaWidth x areaHeight in pixelFormat, holding at
   * most `pending` pictures (1 to 32). Throws when this libavcodec lacks the decoder or it cannot open.
   */
  open(codec: string, areaWidth: number, areaHeight: number, pixelFormat: NativePixelFormat, pending: number): DecoderHandle;
  /** The libavcodec decoder in use. */
  name(decoder: DecoderHandle): string;
  /** A new stream: opens again with these Annex B parameter sets; pictures pending are dropped. */
  configure(decoder: DecoderHandle, parameterSets: Uint8Array): void;
  /** Decodes one Annex B access unit shown at `time` (ms); returns the pictures pending. Throws when full. */
  push(decoder: DecoderHandle, accessUnit: Uint8Array, time: number): number;
  /**
   * Pictures pending (0: none); when some are, info (24 bytes: three float64 in the machine's
   * order, read through a Float64Array on it) = [time, width, height] of the oldest; given 32
   * bytes, also the time of the next one (NaN: none), so a late picture can be dropped without
   * being read. An ArrayBuffer, because Moddable's xsmc takes typed arrays of 1-byte elements only.
   */
  peek(decoder: DecoderHandle, info: ArrayBuffer): number;
  /** Copies the oldest picture (width x height, rows packed) into pixels, drops it, returns its time. */
  read(decoder: DecoderHandle, pixels: ArrayBuffer | Uint8Array): number;
  /** Drops the oldest picture (late). */
  drop(decoder: DecoderHandle): void;
  /** Forgets references and pending pictures (the stream ended or jumps). */
  flush(decoder: DecoderHandle): void;
  /** Frees the decoder now; later calls throw "closed". */
  close(decoder: DecoderHandle): void;
}
