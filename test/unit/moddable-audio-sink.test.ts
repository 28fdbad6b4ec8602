// The Moddable host's audio sink (hosts/moddable/audio-sink.ts) against a fake ECMA-419 audio
// output that pulls as the SDK's do (onWritable offers a buffer's bytes, write() copies at most
// that), its configuration keys, and the test tone. Portable: runs under Node and inside XS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ecma419AudioSink, type AudioOut419, type AudioOut419Options, type AudioOutputKind } from '../../hosts/moddable/audio-sink';
import { fnv1a, playTestTone, testTone } from '../../hosts/moddable/audio-test-tone';
import { hostConfig } from '../../hosts/moddable/manifest-config';
import type { Clock, LogLevel } from '../../src/platform';

/** The outputs opened, each with what it was given (as 16-bit samples) and whether it closed. */
interface FakeOutput extends AudioOut419 {
  options: AudioOut419Options;
  played: number[];
  started: boolean;
  closed: boolean;
  /** The output has a buffer of `bytes` free (what the SDK's onWritable says). */
  pull(bytes: number): void;
}

function fakeOutputs(withVolume = true): { opened: FakeOutput[]; AudioOut: new (options: AudioOut419Options) => AudioOut419 } {
  const opened: FakeOutput[] = [];
  class Fake implements FakeOutput {
    played: number[] = [];
    started = false;
    closed = false;
    volume?: number;
    private offered = 0;
    constructor(readonly options: AudioOut419Options) {
      if (withVolume) this.volume = 1;
      opened.push(this);
    }
    start(): void {
      this.started = true;
    }
    close(): void {
      this.closed = true;
    }
    write(samples: Uint8Array): void {
      assert.ok(samples.byteLength <= this.offered, `wrote ${samples.byteLength} bytes of ${this.offered} offered`);
      assert.equal(samples.byteLength % (2 * this.options.channels), 0, 'whole frames only');
      this.offered -= samples.byteLength;
      const copy = new Int16Array(samples.slice().buffer);
      for (let i = 0; i < copy.length; i++) this.played.push(copy[i]);
    }
    pull(bytes: number): void {
      this.offered = bytes;
      this.options.onWritable(bytes);
    }
  }
  return { opened, AudioOut: Fake };
}

function fakeClock(): Clock & { at: number; timers: Map<number, { due: number; callback: () => void }>; advance(ms: number): void } {
  let next = 1;
  const timers = new Map<number, { due: number; callback: () => void }>();
  const clock = {
    at: 1000,
    timers,
    now: () => clock.at,
    wallTime: () => clock.at,
    setTimer: (ms: number, callback: () => void) => {
      const handle = next++;
      timers.set(handle, { due: clock.at + ms, callback });
      return handle;
    },
    clearTimer: (handle: unknown) => void timers.delete(handle as number),
    advance(ms: number) {
      clock.at += ms;
      for (const [handle, timer] of [...timers]) {
        if (timer.due <= clock.at) {
          timers.delete(handle);
          timer.callback();
        }
      }
    },
  };
  return clock;
}

function makeSink(options: { output?: AudioOutputKind; outputChannels?: 1 | 2; queueBytes?: number; withVolume?: boolean } = {}) {
  const outputs = fakeOutputs(options.withVolume ?? true);
  const clock = fakeClock();
  const lines: string[] = [];
  const sink = new Ecma419AudioSink({
    AudioOut: outputs.AudioOut,
    output: options.output ?? 'alsa',
    outputChannels: options.outputChannels ?? 2,
    queueBytes: options.queueBytes ?? 16384,
    clock,
    log: (level: LogLevel, message: string) => void lines.push(`${level} ${message}`),
  });
  return { sink, clock, lines, opened: outputs.opened };
}

/** Frames 1..n, stereo: left n, right -n. */
function ramp(frames: number, from = 1): Int16Array {
  const pcm = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    pcm[2 * i] = from + i;
    pcm[2 * i + 1] = -(from + i);
  }
  return pcm;
}

test('refuses a rate or channel count the SDK outputs cannot play, naming it, and opens none', () => {
  const { sink, opened } = makeSink();
  assert.match(sink.configure({ sampleRate: 96000, channels: 2 }) ?? '', /8000 to 48000 Hz, not 96000/);
  assert.match(sink.configure({ sampleRate: 44100, channels: 6 }) ?? '', /1 or 2 channels, not 6/);
  assert.equal(opened.length, 0);
});

test('refuses a queue smaller than two of the output\'s buffers', () => {
  const { sink } = makeSink({ queueBytes: 8192 });
  // The simulator's buffer is 1/32 s: 5512 bytes at 44.1 kHz stereo.
  assert.match(sink.configure({ sampleRate: 44100, channels: 2 }) ?? '', /audioQueueBytes 8192 holds less than two of the output's 5512-byte buffers/);
});

test('opens the output for the stream\'s rate in the output\'s channels, 16-bit LPCM, and starts it', () => {
  const { sink, opened } = makeSink({ outputChannels: 1, output: 'i2s' });
  assert.equal(sink.configure({ sampleRate: 44100, channels: 2 }), undefined);
  assert.equal(opened.length, 1);
  const { sampleRate, channels, bitsPerSample, audioType } = opened[0].options;
  assert.deepEqual({ sampleRate, channels, bitsPerSample, audioType }, { sampleRate: 44100, channels: 1, bitsPerSample: 16, audioType: 'LPCM' });
  assert.ok(opened[0].started);
});

test('what onWritable takes is the frames written, in order, in whole frames, across the ring\'s end', () => {
  // 4096 bytes: 1024 stereo frames in the ring.
  const { sink, opened } = makeSink({ queueBytes: 4096 });
  assert.equal(sink.configure({ sampleRate: 8000, channels: 2 }), undefined);
  const output = opened[0];
  let next = 1;
  for (let round = 0; round < 5; round++) {
    sink.write(ramp(700, next), 0);
    next += 700;
    // 1001 bytes: 250 whole frames; then the rest.
    output.pull(1001);
    output.pull(4 * 1024);
    assert.equal(sink.queuedFrames, 0);
  }
  // (No spread of the samples into a call: XS's stack takes far fewer arguments than V8's.)
  assert.equal(output.played.length, 2 * 3500);
  assert.deepEqual(output.played, Array.from(ramp(3500)));
});

test('a stereo stream is mixed to a mono output; a mono stream doubled on a stereo one', () => {
  const mono = makeSink({ outputChannels: 1 });
  mono.sink.configure({ sampleRate: 44100, channels: 2 });
  mono.sink.write(Int16Array.from([100, 300, -5, -6, 32767, 32767]), 0);
  mono.opened[0].pull(6);
  assert.deepEqual(mono.opened[0].played, [200, -6, 32767]);

  const stereo = makeSink({ outputChannels: 2 });
  stereo.sink.configure({ sampleRate: 44100, channels: 1 });
  stereo.sink.write(Int16Array.from([7, -8]), 0);
  stereo.opened[0].pull(8);
  assert.deepEqual(stereo.opened[0].played, [7, 7, -8, -8]);
});

test('a full queue gives up its oldest frames, counted in the line logged when the output closes', () => {
  const { sink, opened, clock, lines } = makeSink({ queueBytes: 4096 });
  sink.configure({ sampleRate: 8000, channels: 2 });
  sink.write(ramp(1000), 0);
  sink.write(ramp(100, 1001), 0);
  assert.equal(sink.queuedFrames, 1024);
  opened[0].pull(8192);
  assert.deepEqual(opened[0].played, Array.from(ramp(1024, 77)));
  // One write larger than the whole queue keeps its own last frames.
  sink.write(ramp(1100, 5000), 0);
  opened[0].pull(8192);
  assert.deepEqual(opened[0].played.slice(2 * 1024), Array.from(ramp(1024, 5076)));
  sink.end();
  opened[0].pull(8192);
  clock.advance(10_000);
  assert.ok(opened[0].closed);
  assert.ok(lines.some((line) => /closed after 2048 frames .* 152 frames dropped \(queue full\)/.test(line)), lines.join('\n'));
});

test('a run starts only with a whole output buffer queued; later a short queue is an underrun, played as far as it goes', () => {
  // The simulator's buffer at 8000 Hz stereo: 250 frames (1000 bytes).
  const { sink, opened, clock, lines } = makeSink();
  sink.configure({ sampleRate: 8000, channels: 2 });
  sink.write(ramp(100), 0);
  opened[0].pull(1000);
  assert.deepEqual(opened[0].played, [], 'not split by the zero fill');
  sink.write(ramp(200, 101), 0);
  opened[0].pull(1000);
  assert.deepEqual(opened[0].played, Array.from(ramp(250)));
  opened[0].pull(1000);
  assert.deepEqual(opened[0].played, Array.from(ramp(300)), 'the 50 left, then the output fills with silence');
  sink.end();
  opened[0].pull(1000);
  clock.advance(1000);
  assert.ok(lines.some((line) => /closed after 300 frames .* 1 underruns/.test(line)), lines.join('\n'));
});

test('volume goes to the output\'s own (0 to 1): dB to gain, muted at -144', () => {
  const { sink, opened } = makeSink();
  sink.setVolume(-20);
  sink.configure({ sampleRate: 44100, channels: 2 });
  assert.ok(Math.abs((opened[0].volume ?? NaN) - 0.1) < 1e-9, 'set on open from the volume before');
  sink.setVolume(-144);
  assert.equal(opened[0].volume, 0);
  sink.setVolume(0);
  assert.equal(opened[0].volume, 1);
});

test('an output without volume gets its samples scaled by the sink', () => {
  const { sink, opened } = makeSink({ withVolume: false });
  sink.configure({ sampleRate: 44100, channels: 2 });
  sink.setVolume(-6.020599913279624);
  sink.write(Int16Array.from([10000, -10000, 32767, -32768]), 0);
  opened[0].pull(8);
  assert.deepEqual(opened[0].played, [5000, -5000, 16383, -16384]);
  sink.setVolume(-144);
  sink.write(Int16Array.from([10000, -10000]), 0);
  opened[0].pull(4096);
  assert.deepEqual(opened[0].played.slice(4), [0, 0]);
});

test('flush drops what is queued; what is written after plays', () => {
  const { sink, opened } = makeSink();
  sink.configure({ sampleRate: 44100, channels: 2 });
  sink.write(ramp(50), 0);
  sink.flush();
  assert.equal(sink.queuedFrames, 0);
  sink.write(ramp(3, 900), 0);
  opened[0].pull(12);
  assert.deepEqual(opened[0].played, Array.from(ramp(3, 900)));
});

test('the first frames of a run wait for their time: silence before them when they come early', () => {
  const { sink, opened, clock } = makeSink({ output: 'i2s' });
  sink.configure({ sampleRate: 8000, channels: 2 });
  // Due 10 ms after the sink's latency from now: 80 frames of silence first.
  sink.write(ramp(2), clock.now() + sink.latencyMs + 10);
  assert.equal(sink.queuedFrames, 82);
  opened[0].pull(82 * 4);
  assert.deepEqual(opened[0].played.slice(0, 160), new Array(160).fill(0));
  assert.deepEqual(opened[0].played.slice(160), Array.from(ramp(2)));
  // Later writes follow on, whatever their time.
  sink.write(ramp(1, 5), clock.now() + 5000);
  assert.equal(sink.queuedFrames, 1);
});

test('end: the output closes once the queue ran dry and the output\'s buffers played; a new stream before that keeps it', () => {
  const { sink, opened, clock } = makeSink();
  sink.configure({ sampleRate: 44100, channels: 2 });
  sink.write(ramp(10), 0);
  sink.end();
  assert.equal(clock.timers.size, 0, 'queued frames play before the wait starts');
  opened[0].pull(4096);
  assert.equal(clock.timers.size, 1);
  // The simulator's output holds 2 + 2 x 2 buffers of 1/32 s: 187.5 ms.
  clock.advance(187);
  assert.equal(opened[0].closed, false);
  clock.advance(1);
  assert.equal(opened[0].closed, true);

  sink.configure({ sampleRate: 44100, channels: 2 });
  sink.end();
  assert.equal(clock.timers.size, 1, 'nothing queued: the wait starts at once');
  assert.equal(sink.configure({ sampleRate: 44100, channels: 2 }), undefined);
  assert.equal(clock.timers.size, 0);
  clock.advance(1000);
  assert.equal(opened.length, 2, 'the same rate keeps the open output');
  assert.equal(opened[1].closed, false);
  assert.equal(sink.configure({ sampleRate: 48000, channels: 2 }), undefined);
  assert.equal(opened[1].closed, true, 'another rate reopens it');
  assert.equal(opened[2].options.sampleRate, 48000);
});

test('latencyMs: what the SDK output holds plus one of its buffers', () => {
  // alsa, 44.1 kHz stereo: 1/32 s buffers; 2 in the output's queue, 4 in ALSA's, 1 in the ring.
  assert.ok(Math.abs(makeSink().sink.latencyMs - 7 * 5512 / 4 / 44.1) < 1e-9);
  // i2s, mono: 7 x 4092 bytes.
  assert.ok(Math.abs(makeSink({ output: 'i2s', outputChannels: 1 }).sink.latencyMs - 7 * 4092 / 2 / 44.1) < 1e-9);
});

test('a refusing output (its constructor throws) is a reason from configure, and writes are dropped', () => {
  const clock = fakeClock();
  const sink = new Ecma419AudioSink({
    AudioOut: class {
      constructor() {
        throw new Error('new channel failed');
      }
    } as unknown as new (options: AudioOut419Options) => AudioOut419,
    output: 'i2s',
    outputChannels: 2,
    queueBytes: 16384,
    clock,
    log: () => undefined,
  });
  assert.match(sink.configure({ sampleRate: 44100, channels: 2 }) ?? '', /cannot open at 44100 Hz, 2 channel\(s\): new channel failed/);
  sink.write(ramp(4), 0);
  assert.equal(sink.queuedFrames, 0);
});

test('the test tone: cosines (440 Hz left, 660 Hz right), not silent at either end, through the sink whole', () => {
  const tone = testTone(44100, 2, 44100);
  assert.deepEqual(Array.from(tone.subarray(0, 4)), [12000, 12000, 11976, 11947]);
  assert.ok(tone[tone.length - 2] !== 0 || tone[tone.length - 1] !== 0);
  assert.equal(fnv1a(Int16Array.from([1, -1])), fnv1a(Int16Array.from([1, -1])));
  assert.notEqual(fnv1a(Int16Array.from([1, -1])), fnv1a(Int16Array.from([-1, 1])));

  // A tenth of a second (4410 frames: 13 packets, the last one short).
  const { sink, opened, clock, lines } = makeSink({ queueBytes: 32768 });
  playTestTone(sink, { sampleRate: 44100, channels: 2, seconds: 0.1, clock, log: (level, message) => void lines.push(`${level} ${message}`) });
  opened[0].pull(32768);
  const tenth = tone.subarray(0, 2 * 4410);
  assert.deepEqual(opened[0].played, Array.from(tenth));
  assert.ok(lines.some((line) => line.includes(`fnv1a 0x${fnv1a(tenth).toString(16).padStart(8, '0')}`)), lines.join('\n'));
});

test('the audio configuration keys: output, channels, queue bytes, the tone, the UDP ports', () => {
  const config = (manifest: Record<string, unknown>) => hostConfig({ deviceId: 'AA:BB:CC:DD:EE:FF', ...manifest }, () => 'x');
  assert.deepEqual(config({}).audio, { output: undefined, outputChannels: 2, queueBytes: 16384, testTone: false });
  assert.deepEqual(config({ audioOutput: 'i2s', audioOutChannels: '1', audioQueueBytes: '8192', audioTestTone: 'true' }).audio, { output: 'i2s', outputChannels: 1, queueBytes: 8192, testTone: true });
  const ports = config({ audioPort: '6100', audioControlPort: 6101 }).config;
  assert.deepEqual([ports.audioPort, ports.audioControlPort], [6100, 6101]);
  assert.throws(() => config({ audioOutput: 'pulse' }), /audioOutput "pulse" is not alsa, i2s or none/);
  assert.throws(() => config({ audioOutChannels: 3 }), /audioOutChannels: 3 is not 1 or 2/);
  assert.throws(() => config({ audioQueueBytes: 100 }), /audioQueueBytes: 100 is not 8192 to 4194304/);
});
