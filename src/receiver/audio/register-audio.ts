// Realtime audio's place in the receiver: the speaker (AudioPlayback) on the host's sink and UDP
// sockets, what plays on the screen, ANNOUNCE's route, and what the session routes call for a
// session's audio. Built only where the host has a sink and the profile plays audio.

import type { AlacKernel } from '../../audio/alac';
import type { AacDecoderFactory } from '../../audio/decoder';
import type { CryptoKernels } from '../../pairing';
import type { AudioSink, Display, Logger, TimeSource, UdpSocket } from '../../platform';
import type { Router } from '../connection/router';
import type { ReceiverLimits } from '../limits';
import type { MediaSession } from '../media/media-session';
import type { SessionAudio } from '../session/session-routes';
import type { Sessions } from '../session/sessions';
import type { Deadlines } from '../timers';
import { AudioPlayback } from './audio-playback';
import { NowPlayingBoard } from './now-playing';
import { createPlayingStream } from './playing-stream';
import { createSessionAudio, registerAnnounceRoute } from './session-audio';

interface AudioContext {
  readonly log: Logger;
  readonly clock: TimeSource;
  readonly timers: Deadlines;
  readonly sink: AudioSink;
  readonly sockets: { readonly data: UdpSocket; readonly control: UdpSocket };
  readonly media: MediaSession;
  readonly sessions: Sessions;
  readonly crypto: CryptoKernels;
  readonly alacKernel: AlacKernel | undefined;
  readonly aacDecoder: AacDecoderFactory | undefined;
  readonly limits: ReceiverLimits;
  readonly display: Display | undefined;
}

export function registerAudio(router: Router, context: AudioContext): { readonly playback: AudioPlayback; readonly sessionAudio: SessionAudio } {
  const { log, clock, timers, sink, sockets, media, sessions, limits, display } = context;
  let board: NowPlayingBoard | undefined;
  const playback = new AudioPlayback({ log, clock, timers, sink, sockets, media, ended: () => board?.clear() });
  board = new NowPlayingBoard(log, display, () => playback.session, () => playback.sampleRate);
  const nowPlaying = board;
  const frameKernel = context.crypto.frame;
  const sessionAudio = createSessionAudio({
    log,
    sessions,
    playback,
    frameKernel,
    alacKernel: context.alacKernel,
    aacDecoder: context.aacDecoder,
    maxLatencyMs: limits.audioBufferMs,
    createStream: (setup) => createPlayingStream(setup, { log, sink, limits }),
    describe: (session, contentType, body) => nowPlaying.describe(session, contentType, body),
    progress: (session, progress) => nowPlaying.progress(session, progress),
  });
  registerAnnounceRoute(router, sessionAudio);
  return { playback, sessionAudio };
}
