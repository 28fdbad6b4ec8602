// Where the desktop receiver's audio goes (hosts/node/audio/audio-out.ts, --audio-out and
// --record-audio in command-line.ts): sound on ALSA's default device unless told, `none` for no
// sound, a device name checked, a WAV sink beside or instead of aplay, and no audio offered where
// it can go nowhere.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { AplaySink } from '../../hosts/node/audio/aplay-sink';
import { onPath, openAudioOut } from '../../hosts/node/audio/audio-out';
import { TeeAudioSink } from '../../hosts/node/audio/tee-sink';
import { WavFileSink } from '../../hosts/node/audio/wav-sink';
import { parseCommandLine } from '../../hosts/node/command-line';

const dir = mkdtempSync(path.join(tmpdir(), 'audio-out-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const base = ['--data-dir', path.join(dir, 'data'), '--device-id', '02:00:00:00:00:01'];
const log = () => {};
const now = () => 0;

test('--audio-out is `default` unless told, `none` is no sound, and a name with a space is refused', () => {
  assert.equal(parseCommandLine(base)?.audioOut, 'default');
  assert.equal(parseCommandLine([...base, '--audio-out', 'plughw:1,0'])?.audioOut, 'plughw:1,0');
  assert.equal(parseCommandLine([...base, '--audio-out', 'none'])?.audioOut, undefined);
  assert.throws(() => parseCommandLine([...base, '--audio-out', 'hw 0']), { name: 'ConfigError', message: '--audio-out "hw 0" is not an ALSA device name (default, hw:0, plughw:1,0...) or none' });
  assert.equal(parseCommandLine([...base, '--record-audio', 'out.wav'])?.recordAudio, 'out.wav');
  assert.equal(parseCommandLine(base)?.recordAudio, undefined);
});

test('aplay is looked for on PATH without running anything', () => {
  writeFileSync(path.join(dir, 'not-executable'), '');
  assert.equal(onPath('not-executable', dir), false);
  chmodSync(path.join(dir, 'not-executable'), 0o755);
  assert.equal(onPath('not-executable', `/nonexistent${path.delimiter}${dir}`), true);
  assert.equal(onPath('not-executable', ''), false);
});

test('the sinks: aplay alone, the WAV file alone, both as one, or none (audio not offered)', () => {
  const wav = path.join(dir, 'out.wav');
  const savedPath = process.env.PATH;
  try {
    process.env.PATH = '/nonexistent';
    assert.deepEqual(openAudioOut({ device: 'default', recordFile: undefined, log, now }), {
      sink: undefined,
      line: 'realtime audio cannot play: aplay (alsa-utils) is not installed, is not offered (--record-audio FILE.wav would record it)',
    });
    assert.deepEqual(openAudioOut({ device: undefined, recordFile: undefined, log, now }), { sink: undefined, line: 'realtime audio is not offered (--audio-out none)' });
    const recordOnly = openAudioOut({ device: 'default', recordFile: wav, log, now });
    assert.ok(recordOnly.sink instanceof WavFileSink);
    assert.equal(recordOnly.line, `realtime audio cannot play: aplay (alsa-utils) is not installed, is recorded to ${wav}`);
    const fakeBin = path.join(dir, 'fake-bin');
    mkdirSync(fakeBin);
    writeFileSync(path.join(fakeBin, 'aplay'), '#!/bin/sh\n');
    chmodSync(path.join(fakeBin, 'aplay'), 0o755);
    process.env.PATH = fakeBin;
    const speaker = openAudioOut({ device: 'hw:0', recordFile: undefined, log, now });
    assert.ok(speaker.sink instanceof AplaySink);
    assert.equal(speaker.line, 'realtime audio plays on ALSA device hw:0 (aplay)');
    const both = openAudioOut({ device: 'default', recordFile: wav, log, now });
    assert.ok(both.sink instanceof TeeAudioSink);
    assert.equal(both.line, `realtime audio plays on ALSA device default (aplay), is recorded to ${wav}`);
  } finally {
    process.env.PATH = savedPath;
  }
});

test('a --record-audio path that cannot be written throws at once (start-up says it)', () => {
  assert.throws(() => openAudioOut({ device: undefined, recordFile: path.join(dir, 'no-such-folder', 'out.wav'), log, now }), { code: 'ENOENT' });
});
