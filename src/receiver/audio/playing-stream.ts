// A stream's engine (src/audio's AudioStream) as the speaker drives it: built from what its SETUP
// said, on the host's sink (configured for the stream's format first: a sink that cannot play it
// refuses the SETUP), with the sender's clock from its session's timing, and summed up in one
// log line when it ends.

import { AudioStream, type AudioStreamStats } from '../../audio/audio-stream';
import { SlewedOffset } from '../../timing';
import type { AudioSink, Logger } from '../../platform';
import type { ReceiverLimits } from '../limits';
import { SessionRequestError } from '../session/session-setup';
import type { PlayingStream } from './audio-playback';
import type { StreamSetup } from './session-audio';

/**
 * How far the output may stand from the sender's clock before a frame is dropped or repeated:
 * shairport-sync's default (2 ms). Closer, the timing estimate's own noise (a tenth of a ms on a
 * quiet network, more on a busy host) would change samples of a stream whose clocks agree.
 */
const DRIFT_TOLERANCE_MS = 2;

interface PlayingStreamContext {
  readonly log: Logger;
  readonly sink: AudioSink;
  readonly limits: Pick<ReceiverLimits, 'audioBufferMs'>;
}

/** `1500 packets, 528000 frames played; 3 lost (silence), 75 asked again, 72 recovered; ...`. */
export function summarise(stats: AudioStreamStats): string {
  const drops = Object.entries(stats.drops)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason}`);
  const drift = stats.driftFramesDropped + stats.driftFramesRepeated > 0 ? `; drift: ${stats.driftFramesDropped} frames dropped, ${stats.driftFramesRepeated} repeated` : '';
  return `${stats.packetsReceived} packets, ${stats.framesPlayed} frames played; ${stats.lostPackets} lost (silence), ${stats.retransmitsRequested} asked again, ${stats.retransmitsRecovered} recovered${drops.length > 0 ? `; dropped: ${drops.join(', ')}` : ''}${drift}`;
}

export function createPlayingStream(setup: StreamSetup, context: PlayingStreamContext): PlayingStream {
  const { log, sink } = context;
  const refusal = sink.configure({ sampleRate: setup.sampleRate, channels: setup.channels });
  if (refusal !== undefined) throw new SessionRequestError(`the audio output cannot play ${setup.sampleRate} Hz, ${setup.channels} channels: ${refusal}`, 501, 'Audio Format Not Served');
  // The estimate's moves taken slowly once the stream plays: its noise must not change the samples
  // of a stream whose clocks agree (see SlewedOffset). Before, the best estimate there is.
  const offset = new SlewedOffset();
  const engine = new AudioStream({
    format: { sampleRate: setup.sampleRate, channels: setup.channels, framesPerPacket: setup.framesPerPacket },
    decoder: setup.decoder,
    sink,
    log: (level, message) => log(level, `${setup.label} audio: ${message}`),
    bufferLimit: { ms: context.limits.audioBufferMs },
    cipher: setup.cipher,
    senderToLocal: (senderMs, now) => {
      const followed = offset.follow(setup.senderOffsetAt(now), now, engine.anchoring === undefined);
      return followed === undefined ? undefined : senderMs - followed;
    },
    latencyFrames: setup.latencyFrames,
    driftToleranceMs: DRIFT_TOLERANCE_MS,
    requestRetransmits: setup.senderControlPort > 0,
  });
  return {
    receiveData: (packet, now) => engine.receiveAudio(packet, now),
    receiveControl: (packet, now) => engine.receiveControl(packet, now),
    record: (start) => engine.record(start),
    flush: (until) => engine.flush(until),
    pollTimeout: () => engine.pollTimeout(),
    handleTimeout: (now) => engine.handleTimeout(now),
    pollControlTransmit: () => engine.pollControlTransmit(),
    close: () => {
      engine.end();
      setup.decoder.close?.();
      return summarise(engine.stats);
    },
  };
}
