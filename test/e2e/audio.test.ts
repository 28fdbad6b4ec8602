// Realtime audio end to end on the built command (loopback): `vendorplay-send audio` streams a
// file ffmpeg made to the speaker profile, the classic way and in a session, PCM and ALAC; the
// receiver's --record-audio WAV holds exactly the source's samples from its first played sample,
// without a gap. Through a relay that loses 5 % of the audio packets, retransmission brings every
// one back and the recording still equals the source.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startLossyRelay } from '../support/lossy-relay';
import { ReceiverProcess, runSender } from './receiver-process';

const BOUND = { timeout: 180_000 };
const SECONDS = 4;

/** The samples of a 16-bit PCM WAV's data chunk. */
function wavSamples(file: string): Int16Array {
  const bytes = readFileSync(file);
  assert.equal(bytes.toString('latin1', 0, 4), 'RIFF');
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'data') {
      const end = Math.min(bytes.length, at + 8 + size);
      const data = bytes.subarray(at + 8, end - ((end - at - 8) % 2));
      return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
    }
    at += 8 + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}

/** Where `source` starts within `heard` (the first frame equal to the source's first non-silent run), or -1. */
function firstPlayed(heard: Int16Array, source: Int16Array): number {
  // The source starts with sound (no leading silence), so its first frame is found exactly.
  for (let frame = 0; frame + 1 < heard.length; frame += 2) {
    if (heard[frame] === source[0] && heard[frame + 1] === source[1] && heard[frame + 2] === source[2] && heard[frame + 3] === source[3]) return frame;
  }
  return -1;
}

/** The receiver's lines about the stream and its clock, for a failure's message. */
function streamLines(log: string): string {
  return log
    .split('\n')
    .filter((line) => /audio|timing offset|not believed|resync/.test(line))
    .slice(-30)
    .join('\n');
}

function assertHeardExactly(recording: string, source: Int16Array, log = ''): void {
  const heard = wavSamples(recording);
  const start = firstPlayed(heard, source);
  assert.ok(start >= 0, `the source's first frame is in the recording (${heard.length / 2} frames)`);
  assert.equal(start, 0, 'the recording starts with the first played sample: no silence before it');
  assert.ok(heard.length - start >= source.length, `${(heard.length - start) / 2} frames heard of ${source.length / 2}`);
  const played = heard.subarray(start, start + source.length);
  let differing = 0;
  for (let i = 0; i < source.length; i++) if (played[i] !== source[i]) differing++;
  let first = -1;
  for (let i = 0; i < source.length && first < 0; i++) if (played[i] !== source[i]) first = i;
  assert.equal(differing, 0, `${differing} of ${source.length} samples differ, the first at frame ${first >> 1}; the receiver said:\n${streamLines(log)}`);
}

describe('realtime audio from the sender tool', BOUND, () => {
  let dir: string;
  let wav: string;
  let source: Int16Array;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vendorplay-audio-'));
    wav = path.join(dir, 'source.wav');
    // A sweep on the left, a tone on the right: no two packets alike, sound from the first sample.
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `aevalsrc=0.4*sin(2*PI*(220+200*t)*t)+0.01|0.3*sin(2*PI*660*t)+0.01:s=44100:d=${SECONDS}`, '-c:a', 'pcm_s16le', '-ac', '2', wav]);
    source = wavSamples(wav);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  async function played(label: string, args: string[], through?: (port: number) => Promise<{ port: number; close: () => Promise<void> }>): Promise<{ recording: string; log: string }> {
    const recording = path.join(dir, `${label}.wav`);
    const receiver = await ReceiverProcess.start({ args: ['--profile', 'speaker', '--audio-out', 'none', '--record-audio', recording] });
    try {
      const relay = through ? await through(receiver.port) : undefined;
      try {
        // iTunes' latency (2 s): the sender's stalls on a busy machine stay inside it.
        const run = await runSender(['audio', `127.0.0.1:${relay?.port ?? receiver.port}`, wav, '--latency', '88200', ...args], 120_000);
        assert.equal(run.code, 0, `the sender ends well:\n${run.stdout}\n${run.stderr}`);
      } finally {
        await relay?.close();
      }
      // The stream ends when the sender's TEARDOWN comes; what was written is on disk by then.
      await receiver.waitForLog(/audio stream ended/, 30_000);
      return { recording, log: receiver.stderr };
    } finally {
      await receiver.stop();
    }
  }

  for (const codec of ['alac', 'pcm'] as const) {
    for (const way of ['classic', 'session'] as const) {
      test(`${codec.toUpperCase()}, ${way}: the recording is the source, sample for sample`, async () => {
        const { recording, log } = await played(`${codec}-${way}`, ['--codec', codec, '--path', way]);
        assertHeardExactly(recording, source, log);
        assert.match(log, new RegExp(`audio stream set up: ${codec === 'pcm' ? 'PCM' : 'ALAC'} 44100 Hz, 2 channels, ${way === 'classic' ? 'classic' : 'session stream type 96'}`));
        assert.match(log, /audio stream ended: .*; \d+ packets, \d+ frames played; 0 lost/);
      });
    }
  }

  test('5 % of the audio packets lost on the way: each asked for again, and the recording is still the source', async () => {
    let counts = { passed: 0, dropped: 0 };
    const { recording, log } = await played('lossy', ['--codec', 'alac', '--path', 'classic'], async (port) => {
      const relay = await startLossyRelay(port, { loss: 0.05 });
      return { port: relay.port, close: async () => ((counts = relay.counts()), await relay.close()) };
    });
    assert.ok(counts.dropped >= 10, `the relay lost ${counts.dropped} of ${counts.passed + counts.dropped} packets`);
    const ended = /audio stream ended: .*; (\d+) packets, \d+ frames played; (\d+) lost \(silence\), (\d+) asked again, (\d+) recovered/.exec(log);
    assert.ok(ended, log);
    assert.equal(Number(ended[2]), 0, 'nothing was filled with silence');
    assert.equal(Number(ended[4]), counts.dropped, 'every lost packet came back');
    assertHeardExactly(recording, source, log);
  });
});
