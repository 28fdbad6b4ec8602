// The Node host's audio sinks (hosts/node/audio/): the WAV file of --record-audio, byte for byte
// what Python's wave module writes, a valid WAV at every moment (mid-stream, after a kill), one
// file per run with later streams appended; and --audio-out's aplay, run for real against an
// ALSA `file` plugin (its output is the raw PCM aplay was given): the frames exactly, the volume
// as gain, flush dropping frames not yet due, and a missing device or program one warning line.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { AplaySink, volumeGain } from '../../hosts/node/audio/aplay-sink';
import { TeeAudioSink } from '../../hosts/node/audio/tee-sink';
import { WavFileSink } from '../../hosts/node/audio/wav-sink';
import { nodeClock } from '../../hosts/node/io/ports';
import type { LogLevel, Logger } from '../../src/platform';
import { PROJECT_ROOT } from '../e2e/receiver-process';

const dir = mkdtempSync(path.join(tmpdir(), 'audio-sinks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign((level: LogLevel, message: string) => void lines.push(`${level} ${message}`), { lines });
}

const STEREO_44100 = { sampleRate: 44100, channels: 2 };
/** Three stereo frames, and the file Python's `wave` writes for them at 44100 Hz. */
const FRAMES = new Int16Array([1, -1, 256, -256, 32767, -32768]);
const PYTHON_WAVE_FILE = '524946463000000057415645666d7420100000000100020044ac000010b1020004001000646174610c0000000100ffff000100ffff7f0080';
/** The empty file Python's `wave` writes (no frames) at 44100 Hz stereo. */
const PYTHON_EMPTY_WAVE_FILE = '524946462400000057415645666d7420100000000100020044ac000010b10200040010006461746100000000';

const hex = (file: string) => readFileSync(file).toString('hex');

/** What Python's wave module reads from `file`: channels, rate, sample width, frames and the sample bytes as hex. */
function pythonReads(file: string): string {
  const script = 'import sys, wave\nw = wave.open(sys.argv[1])\nn = w.getnframes()\nprint(w.getnchannels(), w.getframerate(), w.getsampwidth(), n, w.readframes(n).hex())';
  return execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).trim();
}

describe('the WAV file sink (--record-audio)', () => {
  test('holds exactly the frames written, byte for byte what Python\'s wave module writes', () => {
    const file = path.join(dir, 'exact.wav');
    const sink = new WavFileSink(file, recordingLog());
    assert.equal(sink.latencyMs, 0);
    assert.equal(sink.configure(STEREO_44100), undefined);
    sink.write(FRAMES.subarray(0, 4), 0);
    sink.write(FRAMES.subarray(4), 0);
    sink.end();
    sink.closeFile();
    assert.equal(hex(file), PYTHON_WAVE_FILE);
  });

  test('is a valid WAV at every moment: empty before a stream, then of everything written so far', () => {
    const file = path.join(dir, 'growing.wav');
    const sink = new WavFileSink(file, recordingLog());
    assert.equal(hex(file), PYTHON_EMPTY_WAVE_FILE);
    sink.configure({ sampleRate: 48000, channels: 1 });
    sink.write(new Int16Array([1000, -1000]), 0);
    assert.equal(pythonReads(file), '1 48000 2 2 e80318fc');
    sink.write(new Int16Array([7]), 0);
    assert.equal(pythonReads(file), '1 48000 2 3 e80318fc0700');
    sink.closeFile();
  });

  test('a later stream of the same format is appended; one of another format is refused and not recorded', () => {
    const file = path.join(dir, 'appended.wav');
    const log = recordingLog();
    const sink = new WavFileSink(file, log);
    sink.configure(STEREO_44100);
    sink.write(FRAMES.subarray(0, 2), 0);
    sink.end();
    assert.equal(sink.configure({ sampleRate: 48000, channels: 2 }), `--record-audio ${file} holds 44100 Hz, 2 channels; a stream of 48000 Hz, 2 channels cannot be appended`);
    sink.write(new Int16Array([9, 9]), 0);
    sink.end();
    assert.equal(sink.configure(STEREO_44100), undefined);
    sink.write(FRAMES.subarray(2), 0);
    sink.end();
    sink.closeFile();
    assert.equal(hex(file), PYTHON_WAVE_FILE);
    assert.deepEqual(log.lines, [`warn --record-audio ${file} holds 44100 Hz, 2 channels; a stream of 48000 Hz, 2 channels cannot be appended: not recorded`]);
  });

  test('flush and volume leave the file as sent', () => {
    const file = path.join(dir, 'as-sent.wav');
    const sink = new WavFileSink(file, recordingLog());
    sink.configure(STEREO_44100);
    sink.setVolume(-20);
    sink.write(FRAMES.subarray(0, 4), 0);
    sink.flush();
    sink.write(FRAMES.subarray(4), 0);
    sink.closeFile();
    assert.equal(hex(file), PYTHON_WAVE_FILE);
  });

  test('a receiver killed mid-stream leaves a valid WAV of what was written', async () => {
    const file = path.join(dir, 'killed.wav');
    const script = path.join(dir, 'write-then-die.ts');
    writeFileSync(
      script,
      `import { WavFileSink } from ${JSON.stringify(path.join(PROJECT_ROOT, 'hosts/node/audio/wav-sink.ts'))};\n` +
        `const sink = new WavFileSink(${JSON.stringify(file)}, () => {});\n` +
        'sink.configure({ sampleRate: 44100, channels: 2 });\n' +
        'sink.write(new Int16Array([1, -1, 256, -256]), 0);\n' +
        'sink.write(new Int16Array([32767, -32768]), 0);\n' +
        "process.kill(process.pid, 'SIGKILL');\n",
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: PROJECT_ROOT, stdio: 'ignore' });
    const [, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, sig) => resolve([code, sig])));
    assert.equal(signal, 'SIGKILL');
    assert.equal(hex(file), PYTHON_WAVE_FILE);
    assert.equal(pythonReads(file), '2 44100 2 3 0100ffff000100ffff7f0080');
  });
});

/** Why aplay cannot be tested here, or undefined. */
function aplayMissing(): string | undefined {
  try {
    execFileSync('sh', ['-c', 'command -v aplay'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'aplay is not installed (Debian: alsa-utils; .ci/run installs it)';
  }
}

/**
 * An ALSA configuration with one PCM, `capture`: the `file` plugin over a `null` device, so what
 * aplay plays is written raw to `output` (ALSA_CONFIG_PATH replaces the system's configuration).
 */
function fileDevice(name: string): { env: NodeJS.ProcessEnv; output: string } {
  const output = path.join(dir, `${name}.raw`);
  const config = path.join(dir, `${name}.asoundrc`);
  writeFileSync(config, `pcm.capture {\n  type file\n  slave.pcm { type null }\n  file "${output}"\n  format "raw"\n}\n`);
  return { env: { ...process.env, ALSA_CONFIG_PATH: config }, output };
}

/** The raw output: exactly `expected` first, then only aplay's silence padding its last period. */
function assertPlayed(output: string, expected: Int16Array): void {
  const played = readFileSync(output);
  const bytes = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  assert.equal(played.subarray(0, bytes.length).toString('hex'), bytes.toString('hex'));
  assert.ok(played.subarray(bytes.length).every((byte) => byte === 0), 'after the frames only silence (aplay pads its last period)');
}

function ramp(frames: number, channels: number, scale = 1): Int16Array {
  const pcm = new Int16Array(frames * channels);
  for (let i = 0; i < pcm.length; i++) pcm[i] = ((i * 37) % 2000) - 1000;
  return pcm.map((sample) => Math.round(sample * scale));
}

describe('the ALSA sink (--audio-out), a real aplay into ALSA\'s file plugin', { skip: aplayMissing() }, () => {
  test('plays exactly the frames written, at 0 dB; its latency is the buffer it asks for', async () => {
    const { env, output } = fileDevice('exact');
    const sink = new AplaySink({ device: 'capture', log: recordingLog(), now: nodeClock.now, env, bufferMs: 80 });
    assert.equal(sink.latencyMs, 80);
    assert.equal(sink.configure(STEREO_44100), undefined);
    const pcm = ramp(4410, 2);
    const now = nodeClock.now();
    // Due at once (presentation time within the buffer), in packets of 352 frames.
    for (let frame = 0; frame < 4410; frame += 352) sink.write(pcm.subarray(frame * 2, Math.min(4410, frame + 352) * 2), now);
    sink.end();
    await sink.idle();
    assertPlayed(output, pcm);
  });

  test('applies the sender\'s volume as gain to frames not yet handed over: -20 dB is a tenth, -144 silence', async () => {
    assert.equal(volumeGain(0), 1);
    assert.equal(volumeGain(-144), 0);
    assert.equal(volumeGain(-200), 0);
    const { env, output } = fileDevice('volume');
    const sink = new AplaySink({ device: 'capture', log: recordingLog(), now: nodeClock.now, env });
    sink.configure({ sampleRate: 48000, channels: 1 });
    sink.setVolume(-20);
    const pcm = new Int16Array([1000, -1000, 32767, -32768, 5]);
    sink.write(pcm, nodeClock.now());
    sink.end();
    await sink.idle();
    assertPlayed(output, new Int16Array([100, -100, 3277, -3277, 1]));
    // The caller's samples are its own: the gain went on a copy.
    assert.deepEqual([...pcm], [1000, -1000, 32767, -32768, 5]);
    // Muted after the frames were written, before they went to aplay (it starts once the last one exited): not heard.
    sink.configure({ sampleRate: 48000, channels: 1 });
    sink.setVolume(0);
    sink.write(new Int16Array([1234, -1234]), nodeClock.now());
    sink.setVolume(-144);
    sink.end();
    await sink.idle();
    assertPlayed(output, new Int16Array([0, 0]));
  });

  test('flush drops the frames not yet due; frames after it play', async () => {
    const { env, output } = fileDevice('flush');
    const sink = new AplaySink({ device: 'capture', log: recordingLog(), now: nodeClock.now, env });
    sink.configure(STEREO_44100);
    const later = ramp(1000, 2, 0.5);
    sink.write(later, nodeClock.now() + 60_000);
    sink.flush();
    const now = ramp(352, 2);
    sink.write(now, nodeClock.now());
    sink.end();
    await sink.idle();
    assertPlayed(output, now);
  });

  test('each stream is its own aplay: a second stream after end() plays too', async () => {
    const first = fileDevice('first');
    const sink = new AplaySink({ device: 'capture', log: recordingLog(), now: nodeClock.now, env: first.env });
    sink.configure(STEREO_44100);
    sink.write(ramp(352, 2), nodeClock.now());
    sink.end();
    await sink.idle();
    sink.configure({ sampleRate: 22050, channels: 1 });
    sink.write(ramp(500, 1), nodeClock.now());
    sink.end();
    await sink.idle();
    // The plugin's file is written afresh by each aplay: the second stream's frames.
    assertPlayed(first.output, ramp(500, 1));
  });

  test('without the device: one warning line, then the same failure at debug; writes go nowhere and nothing throws', async () => {
    const { env } = fileDevice('none');
    const log = recordingLog();
    const sink = new AplaySink({ device: 'no-such-device', log, now: nodeClock.now, env });
    for (let stream = 0; stream < 2; stream++) {
      assert.equal(sink.configure(STEREO_44100), undefined);
      sink.write(ramp(352, 2), nodeClock.now());
      await sink.idle();
      sink.write(ramp(352, 2), nodeClock.now());
      sink.end();
    }
    assert.equal(log.lines.length, 2);
    assert.match(log.lines[0], /^warn --audio-out no-such-device: aplay: .*: no sound this stream \(the receiver goes on\)$/);
    assert.equal(log.lines[1], log.lines[0].replace(/^warn/, 'debug'));
  });

  test('without aplay: one warning naming alsa-utils, and it is not looked for again', async () => {
    const log = recordingLog();
    const sink = new AplaySink({ device: 'default', log, now: nodeClock.now, command: path.join(dir, 'no-aplay-here') });
    sink.configure(STEREO_44100);
    sink.write(ramp(352, 2), nodeClock.now());
    await sink.idle();
    sink.end();
    sink.configure(STEREO_44100);
    await sink.idle();
    assert.deepEqual(log.lines, [`warn --audio-out default: ${path.join(dir, 'no-aplay-here')} not found (install alsa-utils): no sound`]);
  });
});

describe('both at once (--audio-out with --record-audio)', { skip: aplayMissing() }, () => {
  test('each part gets the stream; the latency is the larger; a format the file refuses still plays', async () => {
    const { env, output } = fileDevice('tee');
    const file = path.join(dir, 'tee.wav');
    const wav = new WavFileSink(file, recordingLog());
    const speaker = new AplaySink({ device: 'capture', log: recordingLog(), now: nodeClock.now, env });
    const tee = new TeeAudioSink([speaker, wav]);
    assert.equal(tee.latencyMs, speaker.latencyMs);
    tee.configure(STEREO_44100);
    tee.write(FRAMES, nodeClock.now());
    tee.end();
    await speaker.idle();
    assertPlayed(output, FRAMES);
    assert.equal(hex(file), PYTHON_WAVE_FILE);
    assert.equal(tee.configure({ sampleRate: 48000, channels: 2 }), undefined);
    tee.write(new Int16Array([3, 3]), nodeClock.now());
    tee.end();
    await speaker.idle();
    assertPlayed(output, new Int16Array([3, 3]));
    assert.equal(hex(file), PYTHON_WAVE_FILE);
    wav.closeFile();
    assert.ok(existsSync(file));
  });
});
