// The video decoder native (modules/native/video-decoder: libavcodec, libswscale) inside XS (issue
// 14): builds the XS test host (modules/native/xs-host, which links it), makes two H.264 clips
// with ffmpeg, and runs video-decoder-suite.ts in the host with the clips as a global.

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

const HERE = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** Four colour quadrants (red, green / blue, yellow) of width x height, 12 frames, a key frame every 6, no B-frames. */
async function makeClip(file: string, width: number, height: number): Promise<string> {
  const quadrant = `s=${width / 2}x${height / 2}:r=25,format=yuv420p`;
  await run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `color=red:${quadrant}`, '-f', 'lavfi', '-i', `color=lime:${quadrant}`,
    '-f', 'lavfi', '-i', `color=blue:${quadrant}`, '-f', 'lavfi', '-i', `color=yellow:${quadrant}`,
    '-filter_complex', '[0][1][2][3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0',
    '-frames:v', '12', '-c:v', 'libx264', '-profile:v', 'main', '-bf', '0', '-g', '6', '-f', 'h264', file,
  ]);
  return (await readFile(file)).toString('hex');
}

test('the video decoder native decodes ffmpeg clips inside the XS test host (libavcodec h264, libswscale)', async () => {
  const worker = await buildXsHost({ quiet: true });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vp-video-native-'));
  try {
    const clips = { landscape: await makeClip(path.join(dir, 'landscape.h264'), 320, 180), portrait: await makeClip(path.join(dir, 'portrait.h264'), 180, 320) };
    const script = `globalThis.__vpClips = ${JSON.stringify(clips)};\n${await bundlePortableSuites([path.join(HERE, 'video-decoder-suite.ts')])}`;
    const result = await runInXs(script, 300_000, worker);
    const { summary, failures } = suiteResult(result);
    assert.deepEqual(failures, [], `failures inside the XS test host:\n${result.stdout.slice(-4000)}`);
    assert.equal(summary.passed, 7, `the seven native video tests ran:\n${result.stdout}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
