// `npm run bench`: every benchmark, one JSON line per figure on stdout (scripts/bench.mjs compiles
// this file first). Run some groups with `npm run bench -- plist http` (names: plist, http,
// channel, photo (the command), photo-core (the Receiver in-process), slideshow, startup, video, mirror-handoff, xs-pair-setup, xs, mirror,
// audio-clock, audio, rtsp-uxplay).

import { runAudioBench } from './audio.bench';
import { runAudioClockBench } from './audio-clock.bench';
import { runChannelBench } from './channel.bench';
import { runHttpBench } from './http.bench';
import { runMirrorHandoffBenches } from './mirror-handoff.bench';
import { runMirrorBench } from './mirror.bench';
import { runCommandPhotoBench } from './photo-command.bench';
import { runPhotoCoreBench } from './photo.bench';
import { runPlistBench } from './plist.bench';
import { runRtspUxplayBench } from './rtsp-uxplay.bench';
import { runSlideshowBench } from './slideshow.bench';
import { runStartupBench } from './startup.bench';
import { runVideoBench } from './video.bench';
import { runXsPairSetupBench } from './xs-pair-setup';
import { runXsBench } from './xs.bench';

const BENCHES: Record<string, () => void | Promise<void>> = {
  plist: runPlistBench,
  http: () => runHttpBench(),
  channel: runChannelBench,
  photo: () => runCommandPhotoBench(),
  'photo-core': () => runPhotoCoreBench(),
  slideshow: runSlideshowBench,
  startup: runStartupBench,
  video: runVideoBench,
  'mirror-handoff': runMirrorHandoffBenches,
  'xs-pair-setup': () => runXsPairSetupBench(),
  xs: runXsBench,
  mirror: runMirrorBench,
  'audio-clock': runAudioClockBench,
  audio: runAudioBench,
  'rtsp-uxplay': runRtspUxplayBench,
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(`bench: no group ${unknown.join(', ')} (groups: ${Object.keys(BENCHES).join(', ')})\n`);
  process.exit(2);
}
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await run();
}
