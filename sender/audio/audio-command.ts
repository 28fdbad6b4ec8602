// `vendorplay-send audio HOST:PORT FILE`: streams any file ffmpeg reads to a receiver as realtime
// audio, the classic way (ANNOUNCE, SETUP with a Transport, RECORD) or in a session (a session
// SETUP, then a stream SETUP of type 96), PCM or ALAC, paced by the sender's own clock (which a
// test may make run fast or slow with --clock-ppm).

import type { Dialect } from '../../src/dialect';
import type { SenderCodec } from './audio-format';
import { streamClassic } from './classic-path';
import { streamInSession } from './session-path';
import { PcmSource } from './pcm-source';
import { SenderClock } from './sender-clock';
import { takesSessions } from '../session';
import { ControlConnection, describeEndpoint, type CommonHeaders, type Endpoint } from '../wire';

export type AudioPath = 'auto' | 'classic' | 'session';

export interface AudioCommand {
  readonly endpoint: Endpoint;
  readonly dialect: Dialect;
  readonly headers: CommonHeaders;
  readonly file: string;
  readonly codec: SenderCodec;
  readonly path: AudioPath;
  readonly latencyFrames: number;
  readonly startDelayMs: number;
  readonly volumeDb: number;
  readonly clockPpm: number;
  readonly stopAfterMs: number | undefined;
  readonly say: (line: string) => void;
}

export async function sendAudio(command: AudioCommand): Promise<void> {
  // ffmpeg first: a file it cannot read stops the command before the receiver is asked anything.
  const source = await PcmSource.open(command.file);
  let control: ControlConnection | undefined;
  try {
    control = await ControlConnection.open(command.endpoint, command.headers);
    // auto: a session where the receiver's features say it takes them (bit 38), as current senders choose.
    const path = command.path === 'auto' ? ((await takesSessions(control)) ? 'session' : 'classic') : command.path;
    const clock = new SenderClock(command.clockPpm);
    command.say(`streaming ${command.file} to ${describeEndpoint(command.endpoint)} (${path}, ${command.codec}${command.clockPpm !== 0 ? `, sender clock ${command.clockPpm > 0 ? '+' : ''}${command.clockPpm} ppm` : ''})...`);
    const options = { source, codec: command.codec, latencyFrames: command.latencyFrames, startDelayMs: command.startDelayMs, stopAfterMs: command.stopAfterMs, volumeDb: command.volumeDb, clock, say: command.say };
    if (path === 'session') await streamInSession(control, command.dialect, options);
    else await streamClassic(control, options);
    command.say('done');
  } finally {
    source.close();
    control?.close();
  }
}
