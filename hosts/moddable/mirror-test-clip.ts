// The built-in check of the video path without a sender (manifest config `mirrorTestClip`: true;
// hosts/moddable/mirror-test/manifest.json sets it and adds the clip): an H.264 Annex B clip from
// the resource `mirror-test.h264` goes through the VideoDecoder port as a mirroring session
// would hand it over: configure with its parameter sets, then one access unit per frame
// interval, each to be shown `latency` ms after it is handed over. The counts are logged at the
// end and the last picture stays on the screen.

import Resource from 'Resource';
import Timer from 'timer';
import { decoderInput } from '../../src/mirror';
import type { Clock, Logger } from '../../src/platform';
import { describeCounts, type ModdableVideoDecoder } from './video-decoder';

export const TEST_CLIP_RESOURCE = 'mirror-test.h264';


export function playTestClip(decoder: ModdableVideoDecoder, options: { clock: Clock; log: Logger; frameMs: number; latency: number; done?: () => void }): void {
  const { clock, log } = options;
  let clip: Uint8Array;
  try {
    clip = new Uint8Array(new Resource(TEST_CLIP_RESOURCE));
  } catch {
    log('warn', `mirrorTestClip: no resource ${TEST_CLIP_RESOURCE} (build with hosts/moddable/mirror-test/manifest.json)`);
    return;
  }
  const { parameterSets, accessUnits } = decoderInput(clip);
  log('info', `mirrorTestClip: ${clip.length} bytes, ${accessUnits.length} access units (${accessUnits.filter((unit) => unit.keyFrame).length} key frames), one every ${options.frameMs} ms`);
  decoder.configure({ codec: 'avc1', avcC: new Uint8Array(0), parameterSets });
  const started = clock.now();
  let next = 0;
  // decode() decodes, scales and converts at once: its time is the decoder's cost per picture.
  let decodeMs = 0;
  let slowestMs = 0;
  const feeder = Timer.repeat(() => {
    const unit = accessUnits[next];
    const before = clock.now();
    decoder.decode(unit.bytes, started + next * options.frameMs + options.latency, unit.keyFrame);
    const took = clock.now() - before;
    decodeMs += took;
    slowestMs = Math.max(slowestMs, took);
    next++;
    if (next < accessUnits.length) return;
    Timer.clear(feeder);
    // The last picture's time, and a little more, before the counts are final.
    Timer.set(() => {
      log('info', `mirrorTestClip: done in ${clock.now() - started} ms on ${decoder.codecName}: ${describeCounts(decoder.counts)}; decode() ${decodeMs} ms in all, ${slowestMs} ms the slowest`);
      options.done?.();
    }, options.latency + options.frameMs * 2);
  }, options.frameMs);
}
