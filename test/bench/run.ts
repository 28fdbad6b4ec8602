// `npm run bench`: every benchmark, one JSON line per figure on stdout.
// Run one group with `npm run bench -- plist` (names: plist, http, channel, photo, slideshow, xs).

import { runChannelBench } from './channel.bench';
import { runHttpBench } from './http.bench';
import { runPhotoBench } from './photo.bench';
import { runPlistBench } from './plist.bench';
import { runSlideshowBench } from './slideshow.bench';
import { runXsBench } from './xs.bench';

const BENCHES: Record<string, () => void | Promise<void>> = {
  plist: runPlistBench,
  http: () => runHttpBench(),
  channel: runChannelBench,
  photo: () => runPhotoBench(),
  slideshow: runSlideshowBench,
  xs: runXsBench,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await run();
}
