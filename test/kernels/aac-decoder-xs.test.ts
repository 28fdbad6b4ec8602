// The AAC decoder native (modules/native/vp-aac.c: libavcodec's aac decoder) inside XS: builds the
// XS test host (modules/native/xs-host, which links it), makes two AAC-LC clips with ffmpeg (a
// stereo tone and sweep at 44.1 kHz, a mono tone at 48 kHz; ADTS, split here into raw access units
// and the AudioSpecificConfig their headers imply) and ffmpeg's own 16-bit decode of each, and
// runs aac-decoder-suite.ts in the host with them as a global.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildXsHost } from '../../modules/native/xs-host/build.mjs';
import { bundlePortableSuites } from '../xs/bundle';
import { runInXs, suiteResult } from '../xs/xsnap';
import type { AacClip } from './aac-decoder-suite';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** ADTS (ISO 14496-3 1.A.2): the fixed and variable headers' fields this needs. */
function adtsFrames(adts: Buffer): { config: string; units: string[] } {
  const units: string[] = [];
  let config = '';
  for (let at = 0; at < adts.length; ) {
    assert.equal((adts[at] << 4) | (adts[at + 1] >> 4), 0xfff, `ADTS sync word at ${at}`);
    const headerBytes = adts[at + 1] & 1 ? 7 : 9;
    const frameBytes = ((adts[at + 3] & 3) << 11) | (adts[at + 4] << 3) | (adts[at + 5] >> 5);
    const objectType = (adts[at + 2] >> 6) + 1;
    const frequencyIndex = (adts[at + 2] >> 2) & 15;
    const channelConfiguration = ((adts[at + 2] & 1) << 2) | (adts[at + 3] >> 6);
    // The AudioSpecificConfig: 5 bits of object type, 4 of frequency index, 4 of channels, 3 zero.
    const asc = (objectType << 11) | (frequencyIndex << 7) | (channelConfiguration << 3);
    config = asc.toString(16).padStart(4, '0');
    units.push(adts.subarray(at + headerBytes, at + frameBytes).toString('hex'));
    at += frameBytes;
  }
  return { config, units };
}

async function makeClip(dir: string, name: string, source: string, sampleRate: number, channels: number): Promise<AacClip> {
  const adts = path.join(dir, `${name}.aac`);
  const pcm = path.join(dir, `${name}.pcm`);
  const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
  await run('ffmpeg', [...quiet, '-f', 'lavfi', '-i', `${source}:s=${sampleRate}:d=0.5`, '-c:a', 'aac', '-b:a', '128k', '-f', 'adts', adts]);
  // ffmpeg's own decode, with the same libavcodec; libswresample makes the float 16-bit.
  await run('ffmpeg', [...quiet, '-i', adts, '-f', 's16le', pcm]);
  return { ...adtsFrames(await readFile(adts)), sampleRate, channels, pcm: (await readFile(pcm)).toString('hex') };
}

test('the AAC decoder native decodes ffmpeg clips inside the XS test host as ffmpeg does, and refuses bad input', async () => {
  const worker = await buildXsHost({ quiet: true });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vp-aac-native-'));
  try {
    const clips = {
      stereo: await makeClip(dir, 'stereo', 'aevalsrc=0.5*sin(2*PI*440*t)|0.4*sin(2*PI*(200+2000*t)*t)', 44100, 2),
      mono: await makeClip(dir, 'mono', 'aevalsrc=0.6*sin(2*PI*1000*t)', 48000, 1),
    };
    const script = `globalThis.__vpAacClips = ${JSON.stringify(clips)};\n${await bundlePortableSuites([path.join(HERE, 'aac-decoder-suite.ts')])}`;
    const result = await runInXs(script, 300_000, worker);
    const { summary, failures } = suiteResult(result);
    assert.deepEqual(failures, [], `failures inside the XS test host:\n${result.stdout.slice(-4000)}`);
    assert.equal(summary.passed, 7, `the seven native AAC tests ran:\n${result.stdout}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
