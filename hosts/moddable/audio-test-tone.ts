// The by-hand check of the audio sink without a sender (`audioTestTone`): a known pattern written
// through the AudioSink as the playout engine would (352-frame packets, each with its presentation
// time), then end(). In the simulator, ALSA's `file` PCM captures what the output plays, and
// audio-out/check-capture.py compares it with the same pattern (hosts/moddable/README.md
// "Realtime audio"). Pure: the tone is portable, so the unit suites check it too.

import type { AudioSink, Logger, TimeSource } from '../../src/platform';

/** Frames per packet, as senders send them (spf 352). */
const PACKET_FRAMES = 352;
/** Left 440 Hz, right 660 Hz (a swap or a frame's offset shows), at about -8.7 dBFS. */
const TONE_HZ = [440, 660];
const AMPLITUDE = 12000;

/**
 * `frames` frames of the tone, interleaved: channel c is round(AMPLITUDE cos(2 pi f_c n / rate)).
 * Cosine, so the first frame is not silence and the captured pattern has a clear start.
 */
export function testTone(sampleRate: number, channels: number, frames: number): Int16Array {
  const pcm = new Int16Array(frames * channels);
  for (let n = 0; n < frames; n++) {
    for (let c = 0; c < channels; c++) pcm[n * channels + c] = Math.round(AMPLITUDE * Math.cos((2 * Math.PI * TONE_HZ[c] * n) / sampleRate));
  }
  return pcm;
}

/** FNV-1a (32 bits) of the samples' little-endian bytes, as the capture's check prints it. */
export function fnv1a(pcm: Int16Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < pcm.length; i++) {
    const sample = pcm[i] & 0xffff;
    hash = Math.imul(hash ^ (sample & 0xff), 0x01000193);
    hash = Math.imul(hash ^ (sample >> 8), 0x01000193);
  }
  return hash >>> 0;
}

export interface TestToneOptions {
  sampleRate: number;
  channels: number;
  seconds: number;
  clock: TimeSource;
  log: Logger;
}

/** Configures `sink`, writes the tone in packets, ends the stream; logs the pattern's size and hash. */
export function playTestTone(sink: AudioSink, options: TestToneOptions): void {
  const { sampleRate, channels, log } = options;
  const refused = sink.configure({ sampleRate, channels });
  if (refused !== undefined) {
    log('warn', `audioTestTone: ${refused}`);
    return;
  }
  const frames = Math.round(sampleRate * options.seconds);
  const tone = testTone(sampleRate, channels, frames);
  // Every packet is due latencyMs from now plus its place in the stream: the sink pads nothing.
  const start = options.clock.now() + sink.latencyMs;
  for (let at = 0; at < frames; at += PACKET_FRAMES) {
    const end = Math.min(frames, at + PACKET_FRAMES);
    sink.write(tone.subarray(at * channels, end * channels), start + (at / sampleRate) * 1000);
  }
  sink.end();
  log('info', `audioTestTone: ${frames} frames at ${sampleRate} Hz, ${channels} channel(s), ${tone.length * 2} bytes, fnv1a 0x${fnv1a(tone).toString(16).padStart(8, '0')}`);
}
