// Video start-up: from POST /play leaving the client to the first frame of the clip drawn on the
// virtual screen page (Debian's headless Chromium), against the same page loading the same URL
// itself in a <video> element (no receiver, no proxy, no report round trip). The receiver runs
// in this process on a real loopback socket with the Node host's PagePlayer and screen server;
// the clip (ffmpeg, 6 s MP4) comes from a loopback media server. Both sides time with the
// browser's clock for the frame (requestVideoFrameCallback) and the wall clock for the start
// (performance.timeOrigin + now in both processes). Rounds alternate; min/median/max per side and
// the ratio (receiver / direct). Every receiver round checks that the frame on the screen is the
// clip's first (red) and every direct round that the element decoded the 320x240 clip.

import type net from 'node:net';
import type { Page } from 'playwright-core';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { nodeClock, nodeRandom } from '../../hosts/node/io/ports';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { PagePlayer } from '../../hosts/node/screen/player';
import { MediaDestinations } from '../../hosts/node/screen/media-destinations';
import { parseAddressRange } from '../../src/receiver/video/media-destinations';
import { startScreenServer } from '../../hosts/node/screen/server';
import { listen } from '../../hosts/node/io/tcp';
import { launchChromium, VIEWPORT, pictureCentre } from '../support/chromium';
import { colourDistance } from '../support/color-blocks';
import { clipColourAt, CLIP_SIZE, makeMediaFixtures, MediaServer } from '../support/media-fixtures';
import { MemoryStore } from '../support/memory-ports';
import { ratioFigure, report, spreadFields, verify } from './measure';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const ROUNDS = 11;
const WARM_UP_ROUNDS = 2;

/** Wall-clock milliseconds, comparable with the page's performance.timeOrigin + now(). */
const wallNow = () => performance.timeOrigin + performance.now();

/** The page's globals used below (the benches compile without the DOM's types). */
interface PageGlobals {
  document: {
    body: { dataset: Record<string, string | undefined>; classList: { contains(name: string): boolean } };
    createElement(tag: 'video'): DirectVideo;
  };
  performance: { timeOrigin: number; now(): number };
}
interface DirectVideo {
  muted: boolean;
  src: string;
  videoWidth: number;
  videoHeight: number;
  style: { cssText: string };
  play(): Promise<void>;
  pause(): void;
  remove(): void;
  requestVideoFrameCallback(callback: () => void): void;
  removeAttribute(name: string): void;
  load(): void;
}

export async function runVideoBench(): Promise<void> {
  const fixtures = await makeMediaFixtures();
  const media = await MediaServer.start(fixtures.dir);
  const screen = new VirtualScreen('Bench');
  // The media server is on loopback, which the receiver fetches from only when told (--media-allow).
  const player = new PagePlayer({ destinations: new MediaDestinations({ allow: [parseAddressRange('127.0.0.0/8')!], privateRanges: true }) });
  const screenServer = await startScreenServer({ screen, player, port: 0, log: () => {} });
  const receiver = new Receiver(makeConfig({ name: 'Bench', profile: 'desktop' }), {
    crypto: portableCryptoKernels,
    clock: nodeClock,
    random: nodeRandom,
    store: new MemoryStore(),
    log: () => {},
    display: screen,
    player,
  });
  const server = await listen(0, '127.0.0.1', (connection) => receiver.accept(connection));
  const port = (server.address() as net.AddressInfo).port;
  const browser = await launchChromium();
  try {
    // The direct side loads from the media server's origin, which the page's policy forbids.
    const context = await browser.newContext({ viewport: VIEWPORT, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(screenServer.urls[0]);
    await page.waitForSelector('#status .link:text-is("live")', { timeout: 5000 });
    const receiverMs: number[] = [];
    const directMs: number[] = [];
    for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
      // A query per round: nothing comes from the browser's cache on either side.
      const url = `${media.url(fixtures.mp4)}?round=${round}`;
      const viaReceiver = await playThroughReceiver(page, port, url);
      const direct = await playDirectly(page, `${url}-direct`);
      if (round >= WARM_UP_ROUNDS) {
        receiverMs.push(viaReceiver);
        directMs.push(direct);
      }
    }
    report({
      bench: 'video',
      case: 'play-to-first-frame-mp4',
      ...spreadFields('receiverMs', receiverMs, 1),
      ...spreadFields('directMs', directMs, 1),
      ...ratioFigure(receiverMs, directMs),
    });
  } finally {
    await browser.close();
    receiver.stop();
    await new Promise((resolve) => server.close(resolve));
    await screenServer.close();
    await media.close();
    fixtures.remove();
  }
}

/** POST /play, until the page has drawn the item's first frame; checks it is the clip's. Then POST /stop. */
async function playThroughReceiver(page: Page, port: number, url: string): Promise<number> {
  const before = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.dataset.videoItem ?? '');
  const started = wallNow();
  const response = await fetch(`http://127.0.0.1:${port}/play`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/parameters' },
    body: `Content-Location: ${url}\nStart-Position: 0\n`,
  });
  verify(response.status === 200, `POST /play answered ${response.status}`);
  const handle = await page.waitForFunction(
    (previous) => {
      const { dataset } = (globalThis as unknown as PageGlobals).document.body;
      return dataset.videoItem !== undefined && dataset.videoItem !== previous && dataset.videoFrameAt !== undefined ? Number(dataset.videoFrameAt) : false;
    },
    before,
    { timeout: 10_000, polling: 5 },
  );
  const frameAt = (await handle.jsonValue()) as number;
  // Paused at once, so the screenshot shows the first seconds (red) whatever it costs.
  verify((await fetch(`http://127.0.0.1:${port}/rate?value=0`, { method: 'POST' })).status === 200, 'POST /rate?value=0');
  const seen = await pictureCentre(page, 90);
  verify(colourDistance(seen, clipColourAt(0)) <= 40, `the receiver's first frame is the clip's red (saw rgb(${seen.join(',')}))`);
  verify((await fetch(`http://127.0.0.1:${port}/stop`, { method: 'POST' })).status === 200, 'POST /stop');
  await page.waitForFunction(() => !(globalThis as unknown as PageGlobals).document.body.classList.contains('has-video'), undefined, { timeout: 5000 });
  return frameAt - started;
}

/** The same page makes a <video> of the URL itself and times it to its first frame. */
async function playDirectly(page: Page, url: string): Promise<number> {
  const started = wallNow();
  const result = await page.evaluate(async (src) => {
    const { document } = globalThis as unknown as PageGlobals;
    const video = document.createElement('video');
    video.muted = true;
    video.style.cssText = 'position:fixed;inset:0;width:100%;height:100%;z-index:100';
    (document.body as unknown as { append(node: unknown): void }).append(video);
    const drawn = new Promise<number>((resolve) => video.requestVideoFrameCallback(() => resolve((globalThis as unknown as PageGlobals).performance.timeOrigin + (globalThis as unknown as PageGlobals).performance.now())));
    video.src = src;
    await video.play();
    const frameAt = await drawn;
    const size = [video.videoWidth, video.videoHeight];
    video.pause();
    video.removeAttribute('src');
    video.load();
    video.remove();
    return { frameAt, size };
  }, url);
  verify(result.size[0] === CLIP_SIZE.width && result.size[1] === CLIP_SIZE.height, `the direct element decoded the ${CLIP_SIZE.width}x${CLIP_SIZE.height} clip (got ${result.size.join('x')})`);
  return result.frameAt - started;
}
