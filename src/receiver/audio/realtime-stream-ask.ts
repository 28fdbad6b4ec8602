// What a session's SETUP asks of a realtime audio stream (`streams: [{type: 96, ...}]`), read key
// by key with a clear refusal for each wrong value. The spec shows none of it ("the RTP streams:
// not shown"); the keys are those senders in the field send (pyatv 0.14.5 sends ct, spf, sr, shk,
// controlPort, latencyMin, latencyMax, audioFormat, audioMode, isMedia, streamConnectionID and
// supportsDynamicStreamID; iOS the same and a few more, which are not needed to play).

import { COMPRESSION_TYPES, compressionTypeOf } from '../../audio/compression-types';
import type { AudioCodec } from '../../audio/sdp';
import { plistTypeName, type PlistDict, type PlistValue } from '../../plist';
import { SessionRequestError } from '../session/session-setup';

/** `PCM (1)`: a codec as the refusals name it. */
function named(codec: AudioCodec): string {
  const ct = compressionTypeOf(codec);
  return `${COMPRESSION_TYPES[ct].name} (${ct})`;
}

/** Frames per packet senders use: 352 (ALAC and PCM), 1024 (AAC), 480 (AAC-ELD); more is not a sender's. */
const MAX_FRAMES_PER_PACKET = 4096;

/** The sample rates a stream may name; the sink says whether it plays the one named. */
const SAMPLE_RATES = [44100, 48000] as const;

/** ChaCha20-Poly1305's key size: shk is the stream's key. */
const SHARED_KEY_BYTES = 32;

/** A realtime stream as asked, checked. Latencies are in frames of the stream's rate. */
export interface RealtimeStreamAsk {
  readonly codec: AudioCodec;
  readonly sampleRate: number;
  readonly framesPerPacket: number;
  readonly sharedKey: Uint8Array;
  /** The sender's control port (UDP): retransmit requests go there. */
  readonly senderControlPort: number;
  readonly latencyMinFrames: number | undefined;
  readonly latencyMaxFrames: number | undefined;
}

function integerOf(value: PlistValue | undefined): number | undefined {
  if (typeof value === 'bigint') return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return undefined;
}

function requiredInteger(fields: PlistDict, key: string, min: number, max: number): number {
  const value = fields[key];
  if (value === undefined) throw new SessionRequestError(`SETUP: stream type 96 without ${key}`, 400);
  const number = integerOf(value);
  if (number === undefined) throw new SessionRequestError(`SETUP: stream type 96 ${key} is a ${plistTypeName(value)}, not an integer`, 400);
  if (number < min || number > max) throw new SessionRequestError(`SETUP: stream type 96 ${key} ${number} is outside ${min} to ${max}`, 400);
  return number;
}

function optionalInteger(fields: PlistDict, key: string, min: number, max: number): number | undefined {
  return fields[key] === undefined ? undefined : requiredInteger(fields, key, min, max);
}

/**
 * Reads a type 96 stream's dictionary. `maxLatencyMs` bounds the latency a sender may ask for
 * (what the jitter buffer holds, per profile): a stream asking more is refused, not played early.
 */
export function readRealtimeStreamAsk(fields: PlistDict, maxLatencyMs: number, decoded: readonly AudioCodec[] = ['pcm', 'alac']): RealtimeStreamAsk {
  const ct = requiredInteger(fields, 'ct', 0, 0xffff);
  const compression = COMPRESSION_TYPES[ct];
  const codec = compression?.codec;
  if (codec === undefined || !decoded.includes(codec)) {
    const served = decoded.map(named).join(', ');
    throw new SessionRequestError(`SETUP: stream type 96 with ct ${ct} (${compression?.name ?? 'unknown'}): this receiver decodes ${served}`, 501, 'Audio Format Not Served');
  }
  const sampleRate = requiredInteger(fields, 'sr', 1, 384000);
  if (!(SAMPLE_RATES as readonly number[]).includes(sampleRate)) throw new SessionRequestError(`SETUP: stream type 96 at ${sampleRate} Hz: this receiver plays ${SAMPLE_RATES.join(' and ')} Hz`, 501, 'Audio Format Not Served');
  const framesPerPacket = requiredInteger(fields, 'spf', 1, MAX_FRAMES_PER_PACKET);
  const maxLatencyFrames = Math.floor((maxLatencyMs * sampleRate) / 1000);
  const senderControlPort = requiredInteger(fields, 'controlPort', 1, 65535);
  const shk = fields.shk;
  if (!(shk instanceof Uint8Array)) throw new SessionRequestError(`SETUP: stream type 96 ${shk === undefined ? 'without shk (its key)' : `shk is a ${plistTypeName(shk)}, not data`}: this receiver plays encrypted realtime streams`, 400);
  if (shk.length !== SHARED_KEY_BYTES) throw new SessionRequestError(`SETUP: stream type 96 shk is ${shk.length} bytes, not ${SHARED_KEY_BYTES}`, 400);
  const latencyMinFrames = optionalInteger(fields, 'latencyMin', 0, 0xffffffff);
  const latencyMaxFrames = optionalInteger(fields, 'latencyMax', 0, 0xffffffff);
  if (latencyMinFrames !== undefined && latencyMaxFrames !== undefined && latencyMinFrames > latencyMaxFrames) {
    throw new SessionRequestError(`SETUP: stream type 96 latencyMin ${latencyMinFrames} is above latencyMax ${latencyMaxFrames}`, 400);
  }
  if (latencyMinFrames !== undefined && latencyMinFrames > maxLatencyFrames) {
    throw new SessionRequestError(`SETUP: stream type 96 latencyMin ${latencyMinFrames} frames is more than this receiver buffers (${maxLatencyFrames} frames, limits.audioBufferMs)`, 400);
  }
  return { codec, sampleRate, framesPerPacket, sharedKey: shk.slice(), senderControlPort, latencyMinFrames, latencyMaxFrames };
}
