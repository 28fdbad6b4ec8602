// The receiver's configuration from the manifest's `config` (Moddable's `mc/config` module), which
// `mcconfig` also takes from its command line (`mcconfig -m -p lin name="Frame" port=7001`).
// Pure, so the portable suites test it. Command-line values arrive as strings: numbers and
// booleans are read from either form, and a value that is neither is refused by name.

import { isDialectName } from '../../src/dialect';
import { LOG_LEVELS, type LogLevel } from '../../src/platform';
import type { AudioOutputKind } from './audio-sink';
import { ConfigError, DEFAULT_LIMITS, boardLimits, isBoardName, makeConfig, type ReceiverConfig, type ReceiverLimits, isProfileName } from '../../src/receiver';

/** Fields of ReceiverConfig a manifest may set as text. */
const TEXT_FIELDS = ['name', 'deviceId', 'model', 'manufacturer', 'serialNumber', 'firmwareVersion', 'firmwareBuildDate', 'osVersion', 'sourceVersion', 'protocolVersion', 'password', 'pin'] as const;

export interface HostConfig {
  config: ReceiverConfig;
  logLevel: LogLevel;
  /** Whether to advertise by multicast DNS (`mdns: false` turns it off). */
  mdns: boolean;
  video: VideoHostConfig;
  audio: AudioHostConfig;
}

/** Realtime audio's output (`embedded:io/audio/out`; hosts/moddable/README.md "Realtime audio"). */
export interface AudioHostConfig {
  /** Which SDK output the platform links (`audioOutput`: `alsa` on lin, `i2s` on esp32), or none. */
  output: AudioOutputKind | undefined;
  /** Channels the output plays (`audioOutChannels`, 1 or 2): an ESP32 board's I2S slot mode is built in. */
  outputChannels: 1 | 2;
  /** The sink's queue between the core's writes and the output, in bytes (`audioQueueBytes`). */
  queueBytes: number;
  /** Play a 1 s test tone through the sink at start (`audioTestTone`; README "Realtime audio"). */
  testTone: boolean;
}

/** The SDK outputs `audioOutput` may name; `none` (or no key) gives the receiver no audio sink. */
const AUDIO_OUTPUTS: readonly AudioOutputKind[] = ['alsa', 'i2s'];
/**
 * 16 KB: a quarter of the speaker board's 64 KB chunk heap; two to four of the output's buffers
 * (ESP32 4092 bytes; the simulator's 1/32 s, 5512 bytes at 44.1 kHz stereo). The playout engine
 * keeps its own jitter buffer, so the sink needs only what the output asks for next.
 */
const DEFAULT_AUDIO_QUEUE_BYTES = 16384;
/** Bounds of `audioQueueBytes`: two ESP32 buffers, and 4 MB (a simulator test of several seconds). */
const MIN_AUDIO_QUEUE_BYTES = 8192;
const MAX_AUDIO_QUEUE_BYTES = 4 * 1024 * 1024;

function audioHostConfig(manifest: Readonly<Record<string, unknown>>): AudioHostConfig {
  const asked = String(manifest.audioOutput ?? 'none');
  if (asked !== 'none' && !AUDIO_OUTPUTS.includes(asked as AudioOutputKind)) throw new ConfigError(`config audioOutput "${asked}" is not ${AUDIO_OUTPUTS.join(', ')} or none`);
  const channels = manifest.audioOutChannels === undefined ? 2 : integer('audioOutChannels', manifest.audioOutChannels);
  if (channels !== 1 && channels !== 2) throw new ConfigError(`config audioOutChannels: ${channels} is not 1 or 2`);
  const queueBytes = manifest.audioQueueBytes === undefined ? DEFAULT_AUDIO_QUEUE_BYTES : integer('audioQueueBytes', manifest.audioQueueBytes);
  if (queueBytes < MIN_AUDIO_QUEUE_BYTES || queueBytes > MAX_AUDIO_QUEUE_BYTES) throw new ConfigError(`config audioQueueBytes: ${queueBytes} is not ${MIN_AUDIO_QUEUE_BYTES} to ${MAX_AUDIO_QUEUE_BYTES}`);
  return {
    output: asked === 'none' ? undefined : (asked as AudioOutputKind),
    outputChannels: channels as 1 | 2,
    queueBytes,
    testTone: manifest.audioTestTone === undefined ? false : boolean('audioTestTone', manifest.audioTestTone),
  };
}

/** Screen mirroring's decoder on the libavcodec natives (modules/native/video-decoder). */
export interface VideoHostConfig {
  /** libavcodec decoders to try in order: `videoDecoder: "h264_v4l2m2m"` asks for the board's V4L2 one first. */
  codecs: string[];
  /** Decoded pictures waiting for their presentation time, at most (`videoPending`, 1 to 32). */
  pending: number;
  /** Play the built-in test clip at start (`mirrorTestClip`; hosts/moddable/mirror-test/manifest.json). */
  testClip: boolean;
  /** Echo UDP datagrams on a port the binder picks (`udpEchoTest`; the same manifest). */
  udpEchoTest: boolean;
}

/** The decoders `videoDecoder` may name: the V4L2 mem2mem one (hardware), or the software one. */
const VIDEO_DECODERS = ['h264_v4l2m2m', 'h264'];
const DEFAULT_VIDEO_PENDING = 8;
const MAX_VIDEO_PENDING = 32;

function videoHostConfig(manifest: Readonly<Record<string, unknown>>): VideoHostConfig {
  const asked = String(manifest.videoDecoder ?? 'h264');
  if (!VIDEO_DECODERS.includes(asked)) throw new ConfigError(`config videoDecoder "${asked}" is not ${VIDEO_DECODERS.join(' or ')}`);
  const pending = manifest.videoPending === undefined ? DEFAULT_VIDEO_PENDING : integer('videoPending', manifest.videoPending);
  if (pending < 1 || pending > MAX_VIDEO_PENDING) throw new ConfigError(`config videoPending: ${pending} is not 1 to ${MAX_VIDEO_PENDING}`);
  return {
    // The software decoder stays behind the hardware one: a board without a V4L2 device still mirrors.
    codecs: asked === 'h264' ? ['h264'] : [asked, 'h264'],
    pending,
    testClip: manifest.mirrorTestClip === undefined ? false : boolean('mirrorTestClip', manifest.mirrorTestClip),
    udpEchoTest: manifest.udpEchoTest === undefined ? false : boolean('udpEchoTest', manifest.udpEchoTest),
  };
}

function integer(key: string, value: unknown): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) throw new ConfigError(`config ${key}: ${JSON.stringify(value)} is not a whole number`);
  return number;
}

function boolean(key: string, value: unknown): boolean {
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  throw new ConfigError(`config ${key}: ${JSON.stringify(value)} is not true or false`);
}

/**
 * The receiver configuration from `manifest` (the `mc/config` object). Keys it does not know
 * (other modules' settings such as `sntp`) are left alone. `deviceId` falls back to
 * `fallbackDeviceId` (the board's MAC address, or one kept in preferences).
 */
export function hostConfig(manifest: Readonly<Record<string, unknown>>, fallbackDeviceId: () => string): HostConfig {
  const overrides: Parameters<typeof makeConfig>[0] = {};
  const text = overrides as Record<string, unknown>;
  for (const field of TEXT_FIELDS) {
    const value = manifest[field];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string' && typeof value !== 'number') throw new ConfigError(`config ${field}: ${JSON.stringify(value)} is not text`);
    text[field] = String(value);
  }
  if (manifest.profile !== undefined) {
    const profile = String(manifest.profile);
    if (!isProfileName(profile)) throw new ConfigError(`config profile "${profile}" is not photo-frame, speaker, media-board or desktop`);
    overrides.profile = profile;
  }
  if (manifest.dialect !== undefined) {
    const dialect = String(manifest.dialect);
    if (!isDialectName(dialect)) throw new ConfigError(`config dialect "${dialect}" is not vendor or apple`);
    overrides.dialect = dialect;
  }
  if (manifest.port !== undefined) overrides.port = integer('port', manifest.port);
  if (manifest.mirrorPort !== undefined) overrides.mirrorPort = integer('mirrorPort', manifest.mirrorPort);
  if (manifest.eventPort !== undefined) overrides.eventPort = integer('eventPort', manifest.eventPort);
  if (manifest.timingPort !== undefined) overrides.timingPort = integer('timingPort', manifest.timingPort);
  if (manifest.audioPort !== undefined) overrides.audioPort = integer('audioPort', manifest.audioPort);
  if (manifest.audioControlPort !== undefined) overrides.audioControlPort = integer('audioControlPort', manifest.audioControlPort);
  if (manifest.pinRequired !== undefined) overrides.pinRequired = boolean('pinRequired', manifest.pinRequired);
  if (manifest.nameIsFactoryDefault !== undefined) overrides.nameIsFactoryDefault = boolean('nameIsFactoryDefault', manifest.nameIsFactoryDefault);
  // The board the build is for (each esp32 section of manifest.json names its row of
  // src/receiver/boards.ts, and --board-sizes gives the simulator the same): the profile's memory
  // limits there, in place of those of the board the profile needs at least (profiles.ts).
  // Limits by their own names (maxConnections=4 on the command line), as the Node host's
  // --limit, go over both.
  const limits: Partial<ReceiverLimits> = {};
  if (manifest.board !== undefined) {
    const board = String(manifest.board);
    if (!isBoardName(board)) throw new ConfigError(`config board "${board}" is not a board of src/receiver/boards.ts`);
    const profile = overrides.profile ?? 'desktop';
    // No row of BOARD_LIMITS names the desktop profile: it fits no board.
    const onBoard = boardLimits(board, profile as Parameters<typeof boardLimits>[1]);
    if (!onBoard) throw new ConfigError(`config board "${board}": the ${profile} profile does not fit it (src/receiver/boards.ts)`);
    Object.assign(limits, onBoard);
  }
  for (const name of Object.keys(DEFAULT_LIMITS) as (keyof ReceiverLimits)[]) {
    if (manifest[name] !== undefined) limits[name] = integer(name, manifest[name]);
  }
  overrides.limits = limits;
  overrides.deviceId ??= fallbackDeviceId();

  const logLevel = String(manifest.logLevel ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`config logLevel "${logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  return {
    config: makeConfig(overrides),
    logLevel,
    mdns: manifest.mdns === undefined ? true : boolean('mdns', manifest.mdns),
    video: videoHostConfig(manifest),
    audio: audioHostConfig(manifest),
  };
}
