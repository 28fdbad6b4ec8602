// The session description of a classic ANNOUNCE (RFC 4566 lines, `type=value`), read into the
// format of the one audio stream it describes. What senders send (pyatv 0.14.5, iTunes):
//   m=audio 0 RTP/AVP 96
//   a=rtpmap:96 L16/44100/2            (or AppleLossless, or mpeg4-generic/44100/2)
//   a=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100
// pyatv sends the ALAC-shaped fmtp with L16 too: its first field is the frames per packet.
// Encrypted streams carry a=rsaaeskey and a=aesiv (et=1 in the TXT record); this receiver does
// not serve them (it does not advertise et=1), so they are refused by name, not played as noise.

import { AudioDecodeError } from './decoder';
import { parseAlacFmtp } from './alac';

/** The ANNOUNCE body is not one this receiver plays; the message names the line. */
export class SdpError extends Error {
  override name = 'SdpError';
  constructor(
    message: string,
    /** The SDP is well formed but asks for what is not played here (an encrypted stream, an unknown encoding). */
    readonly unserved = false,
  ) {
    super(message);
  }
}

export type AudioCodec = 'pcm' | 'alac' | 'aac';

/** The stream an ANNOUNCE describes. Latencies are in frames of the stream's rate, where given. */
export interface AudioStreamFormat {
  readonly codec: AudioCodec;
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly framesPerPacket: number;
  /** The fmtp parameters after the payload type (ALAC: parseAlacFmtp reads them). */
  readonly fmtp?: string;
  readonly minLatencyFrames?: number;
  readonly maxLatencyFrames?: number;
}

/** The encodings of a=rtpmap, one row each: the codec, and frames per packet unless fmtp says. */
const ENCODINGS: Readonly<Record<string, { readonly codec: AudioCodec; readonly framesPerPacket: number }>> = {
  l16: { codec: 'pcm', framesPerPacket: 352 },
  applelossless: { codec: 'alac', framesPerPacket: 352 },
  // RFC 3640: one AAC access unit is 1024 frames.
  'mpeg4-generic': { codec: 'aac', framesPerPacket: 1024 },
};

/** Attributes that say the stream is encrypted (RSA-wrapped AES key, FairPlay-wrapped key). */
const ENCRYPTION_ATTRIBUTES = ['rsaaeskey', 'aesiv', 'fpaeskey'] as const;

const MAX_FRAMES_PER_PACKET = 4096;
const MAX_CHANNELS = 8;
const MAX_SAMPLE_RATE = 384_000;
/** Bodies are short (pyatv's is under 200 bytes); a longer one is not an audio description. */
const MAX_LINES = 64;

interface Rtpmap {
  readonly encoding: string;
  readonly sampleRate?: number;
  readonly channels?: number;
}

function integerField(text: string, what: string, line: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(text)) throw new SdpError(`SDP line '${line}': ${what} '${text}' is not a number`);
  const value = Number(text);
  if (value < min || value > max) throw new SdpError(`SDP line '${line}': ${what} ${value} is outside ${min} to ${max}`);
  return value;
}

/** Reads an ANNOUNCE body; throws SdpError naming the line it could not take. */
export function readAnnounceSdp(body: string): AudioStreamFormat {
  // Some senders end lines with bare LF.
  const lines = body.split(/\r?\n/).filter((line) => line.length > 0);
  if (lines.length > MAX_LINES) throw new SdpError(`SDP of ${lines.length} lines, more than ${MAX_LINES}`);
  let payloadType: string | undefined;
  let mediaLine: string | undefined;
  let rtpmap: Rtpmap | undefined;
  let rtpmapLine = '';
  let fmtp: string | undefined;
  let fmtpLine = '';
  let minLatencyFrames: number | undefined;
  let maxLatencyFrames: number | undefined;
  for (const line of lines) {
    if (!/^[a-z]=/.test(line)) throw new SdpError(`SDP line '${line}' is not 'type=value' (RFC 4566 5)`);
    const type = line[0];
    const value = line.slice(2);
    if (type === 'm') {
      if (mediaLine !== undefined) throw new SdpError(`SDP line '${line}': a second media description; one audio stream is played`);
      const fields = value.split(' ');
      if (fields[0] !== 'audio') throw new SdpError(`SDP line '${line}': media '${fields[0]}', not audio`);
      if (fields.length !== 4) throw new SdpError(`SDP line '${line}': one payload type expected after the protocol`);
      mediaLine = line;
      payloadType = fields[3];
      continue;
    }
    if (type !== 'a') continue;
    const colon = value.indexOf(':');
    const name = colon < 0 ? value : value.slice(0, colon);
    const attribute = colon < 0 ? '' : value.slice(colon + 1);
    if ((ENCRYPTION_ATTRIBUTES as readonly string[]).includes(name)) {
      throw new SdpError(`SDP line 'a=${name}:...': an encrypted stream (et=1); this receiver plays unencrypted streams only`, true);
    }
    if (name === 'rtpmap') {
      rtpmap = readRtpmap(attribute, line);
      rtpmapLine = line;
      if (attribute.split(' ')[0] !== payloadType) throw new SdpError(`SDP line '${line}': payload type is not the media line's (${payloadType ?? 'no m=audio line before it'})`);
    } else if (name === 'fmtp') {
      const space = attribute.indexOf(' ');
      if (space < 0 || attribute.slice(0, space) !== payloadType) throw new SdpError(`SDP line '${line}': payload type is not the media line's (${payloadType ?? 'no m=audio line before it'})`);
      fmtp = attribute.slice(space + 1).trim();
      fmtpLine = line;
    } else if (name === 'min-latency') {
      minLatencyFrames = integerField(attribute, 'min-latency', line, 0, 0xffffffff);
    } else if (name === 'max-latency') {
      maxLatencyFrames = integerField(attribute, 'max-latency', line, 0, 0xffffffff);
    }
  }
  if (mediaLine === undefined) throw new SdpError('SDP without an m=audio line');
  if (rtpmap === undefined) throw new SdpError(`SDP without a=rtpmap for payload type ${payloadType}`);
  const encoding = ENCODINGS[rtpmap.encoding.toLowerCase()];
  if (!encoding) throw new SdpError(`SDP line '${rtpmapLine}': encoding '${rtpmap.encoding}' is not L16, AppleLossless or mpeg4-generic`, true);
  const format = encoding.codec === 'alac' ? alacFormat(fmtp, fmtpLine) : rtpmapFormat(rtpmap, rtpmapLine, encoding.codec, encoding.framesPerPacket, fmtp, fmtpLine);
  if (minLatencyFrames !== undefined && maxLatencyFrames !== undefined && minLatencyFrames > maxLatencyFrames) {
    throw new SdpError(`SDP: min-latency ${minLatencyFrames} is above max-latency ${maxLatencyFrames}`);
  }
  return {
    ...format,
    ...(fmtp !== undefined ? { fmtp } : {}),
    ...(minLatencyFrames !== undefined ? { minLatencyFrames } : {}),
    ...(maxLatencyFrames !== undefined ? { maxLatencyFrames } : {}),
  };
}

/** RFC 4566 6: `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`. */
function readRtpmap(attribute: string, line: string): Rtpmap {
  const space = attribute.indexOf(' ');
  if (space < 0) throw new SdpError(`SDP line '${line}': no encoding after the payload type`);
  const parts = attribute.slice(space + 1).trim().split('/');
  if (parts.length > 3 || parts[0] === '') throw new SdpError(`SDP line '${line}' is not 'encoding/rate/channels'`);
  return {
    encoding: parts[0],
    ...(parts.length > 1 ? { sampleRate: integerField(parts[1], 'clock rate', line, 1, MAX_SAMPLE_RATE) } : {}),
    ...(parts.length > 2 ? { channels: integerField(parts[2], 'channels', line, 1, MAX_CHANNELS) } : {}),
  };
}

type FormatCore = Pick<AudioStreamFormat, 'codec' | 'sampleRate' | 'channels' | 'bitsPerSample' | 'framesPerPacket'>;

/** L16 and AAC: rate and channels from rtpmap; frames per packet from an ALAC-shaped fmtp's first field, if one is sent. */
function rtpmapFormat(rtpmap: Rtpmap, line: string, codec: AudioCodec, defaultFrames: number, fmtp: string | undefined, fmtpLine: string): FormatCore {
  if (rtpmap.sampleRate === undefined) throw new SdpError(`SDP line '${line}': no clock rate`);
  let framesPerPacket = defaultFrames;
  const first = fmtp?.split(' ')[0];
  if (codec === 'pcm' && first !== undefined && /^\d+$/.test(first)) framesPerPacket = integerField(first, 'frames per packet', fmtpLine, 1, MAX_FRAMES_PER_PACKET);
  // RFC 3551 4.5.11: L16 is 16-bit, one channel unless rtpmap says.
  return { codec, sampleRate: rtpmap.sampleRate, channels: rtpmap.channels ?? 1, bitsPerSample: 16, framesPerPacket };
}

/** ALAC: everything from the fmtp (the ALACSpecificConfig's fields, read by the ALAC decoder's own reader). */
function alacFormat(fmtp: string | undefined, line: string): FormatCore {
  if (fmtp === undefined) throw new SdpError('SDP: AppleLossless without a=fmtp (its decoder configuration)');
  let config;
  try {
    config = parseAlacFmtp(fmtp);
  } catch (error) {
    if (error instanceof AudioDecodeError) throw new SdpError(`SDP line '${line}': ${error.message}`);
    throw error;
  }
  if (config.frameLength > MAX_FRAMES_PER_PACKET) throw new SdpError(`SDP line '${line}': frame length ${config.frameLength} is above ${MAX_FRAMES_PER_PACKET}`);
  if (config.sampleRate < 1 || config.sampleRate > MAX_SAMPLE_RATE) throw new SdpError(`SDP line '${line}': sample rate ${config.sampleRate} is outside 1 to ${MAX_SAMPLE_RATE}`);
  return { codec: 'alac', framesPerPacket: config.frameLength, bitsPerSample: config.bitDepth, channels: config.numChannels, sampleRate: config.sampleRate };
}
