// Slideshow throughput of the core: a receiver on in-memory ports fetching pictures over three
// slideshow reverse connections (spec 8), each reply a binary plist with a JPEG of a given size
// (spec 2.8), parsed by the reverse connection's HTTP parser and readAssetReply, then shown.
// Reports slides per second and megabytes per second of reply bodies the core takes in, as
// min/median/max over repetitions; every run checks that each picture shown is the one served.

import { equal } from '../../src/bytes';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { encodeXmlPlistBytes } from '../../src/plist/xml';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { sampleJpeg } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { deliverReplies, ReversePeer } from '../support/reverse-peer';
import { report, spreadFields, verify } from './measure';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const REPETITIONS = 3;

const SESSION = '6A1F0C3E-2B4D-4E8A-9C71-5D3B2A1E0F98';

async function slidesPerSecond(pictureBytes: number, slides: number): Promise<{ slidesPerSecond: number; mbPerSecond: number }> {
  const clock = new ManualClock();
  const display = new RecordingDisplay();
  const receiver = new Receiver(makeConfig({ profile: 'photo-frame' }), { crypto: portableCryptoKernels, clock, random: seededRandom(3), store: new MemoryStore(), log: recordingLogger(), display });
  let id = 1;
  const jpeg = sampleJpeg(pictureBytes);
  const reply = (n: number) => ({ status: 200, headers: { 'Content-Type': 'application/x-vendor-binary-plist' }, body: encodeBinaryPlist({ data: jpeg, info: { id: n, key: 1 } }) });
  const bodyBytes = reply(1).body.length;
  for (let i = 0; i < 3; i++) await ReversePeer.open(receiver, { sessionId: SESSION, purpose: 'slideshow', remotePort: 52000 + i, responder: () => reply(id++) });
  const control = new MemorySender(receiver, 50001);
  const start = performance.now();
  await control.request('PUT', '/slideshows/1', {
    body: encodeXmlPlistBytes({ settings: { slideDuration: 1, theme: 'Dissolve' }, state: 'playing' }),
    contentType: 'text/x-vendor-plist+xml',
    headers: [['X-Vendor-Session-ID', SESSION]],
  });
  deliverReplies();
  while (display.photos.length < slides) {
    clock.advance(1000);
    deliverReplies();
  }
  const seconds = (performance.now() - start) / 1000;
  receiver.slideshow?.stop('bench done');
  const shown = display.photos;
  verify(shown.length >= slides && shown.every((photo) => equal(photo.jpeg, jpeg)), `every slide shown is the ${pictureBytes}-byte picture served`);
  return { slidesPerSecond: slides / seconds, mbPerSecond: (slides * bodyBytes) / seconds / 1e6 };
}

export async function runSlideshowBench(): Promise<void> {
  await slidesPerSecond(20 * 1024, 300); // warm-up, not reported
  for (const [name, bytes, slides] of [
    ['asset-20k', 20 * 1024, 2000],
    ['asset-150k', 150 * 1024, 500],
  ] as const) {
    const runs = [];
    for (let i = 0; i < REPETITIONS; i++) runs.push(await slidesPerSecond(bytes, slides));
    report({
      bench: 'slideshow',
      case: name,
      slides,
      ...spreadFields('slidesPerSecond', runs.map((run) => run.slidesPerSecond), 1),
      ...spreadFields('mbPerSecond', runs.map((run) => run.mbPerSecond), 1),
      repetitions: REPETITIONS,
    });
  }
}
