// Video start-up: from POST /play leaving the client to the first frame of the clip drawn on the
// virtual screen page (Debian's headless Chromium), against the same page loading the same URL
// itself (no receiver, no proxy, no report round trip). The receiver is the built command
// (ReceiverProcess: dist/, --media-allow 127.0.0.0/8 for the loopback media server, log at info
// as a person runs it), in its own process as on a real screen; the clip (ffmpeg, 6 s MP4) comes
// from the loopback media server of the tests, in a process of its own too, so neither shares an
// event loop with the bench's driving of Chromium (which handles a DevTools event for every
// request the page makes: the receiver's page reports among them). Both sides play in the same
// page, in a <video> shown as the page shows one (the receiver's side in the page's own element,
// the direct side in an element of its own styled as that one is while it plays: it must not take
// the page's element, whose standby request the receiver sends the next video on), from the same
// media server, and take the
// first frame the same way: the element's first requestVideoFrameCallback, timed with the
// browser's clock, against the wall clock for the start (performance.timeOrigin + now in both
// processes). The receiver's side starts as POST /play leaves a sender's connection (open for
// the whole bench, as a sender keeps its own; the request's bytes made before); the direct side
// as the bench asks the page (a DevTools message). Rounds alternate which side goes first;
// min/median/max per side and the ratio (receiver / direct). Every round of either side checks
// that the element decoded the 320x240 clip and that the screen then shows its first (red) frame.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium, VIEWPORT, pictureCentre } from '../support/chromium';
import { colourDistance } from '../support/color-blocks';
import { clipColourAt, CLIP_SIZE, makeMediaFixtures } from '../support/media-fixtures';
import { PROJECT_ROOT, ReceiverProcess, within } from '../e2e/receiver-process';
import { ratioFigure, report, spreadFields, verify } from './measure';

const ROUNDS = 41;
const WARM_UP_ROUNDS = 2;

/** Wall-clock milliseconds, comparable with the page's performance.timeOrigin + now(). */
const wallNow = () => performance.timeOrigin + performance.now();

/** The page's globals used below (the benches compile without the DOM's types). */
interface PageGlobals {
  document: {
    body: PageBody;
    getElementById(id: VideoId): PageVideo;
    createElement(name: 'video'): PageVideo;
  };
  performance: { timeOrigin: number; now(): number };
  MutationObserver: new (callback: () => void) => { observe(target: PageBody, options: { attributes: true; attributeFilter: string[] }): void; disconnect(): void };
  /** The page's first frame of the next item, awaited by playThroughReceiver. */
  benchFrame?: Promise<number>;
}
interface PageBody {
  dataset: Record<string, string | undefined>;
  classList: { contains(name: string): boolean; add(name: string): void; remove(name: string): void };
}
/** The page's element (the receiver's side), and the direct side's own. */
type VideoId = 'video' | 'direct-video';
interface PageVideo {
  id: string;
  style: Record<string, string>;
  playsInline: boolean;
  remove(): void;
  src: string;
  videoWidth: number;
  videoHeight: number;
  play(): Promise<void>;
  pause(): void;
  requestVideoFrameCallback(callback: () => void): void;
  removeAttribute(name: string): void;
  load(): void;
}

export async function runVideoBench(): Promise<void> {
  const fixtures = await makeMediaFixtures();
  const media = await startMediaServer(fixtures.dir);
  // The media server is on loopback, which the receiver fetches from only when told.
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--name', 'Bench', '--media-allow', '127.0.0.0/8'] });
  const sender = await SenderConnection.open(receiver.port);
  const browser = await launchChromium();
  try {
    // The direct side loads from the media server's origin, which the page's policy forbids.
    const context = await browser.newContext({ viewport: VIEWPORT, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(receiver.screenUrl!);
    await page.waitForSelector('#status .link:text-is("live")', { timeout: 5000 });
    const receiverMs: number[] = [];
    const directMs: number[] = [];
    for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
      // A query per round: nothing comes from the browser's cache on either side.
      const url = `${media.url}${fixtures.mp4}?round=${round}`;
      let viaReceiver: number;
      let direct: number;
      if (round % 2 === 0) {
        viaReceiver = await playThroughReceiver(page, sender, url);
        direct = await playDirectly(page, `${url}-direct`);
      } else {
        direct = await playDirectly(page, `${url}-direct`);
        viaReceiver = await playThroughReceiver(page, sender, url);
      }
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
    sender.close();
    await browser.close();
    await receiver.stop();
    media.child.kill();
    fixtures.remove();
  }
}

/** test/support/media-fixtures.ts's MediaServer for `dir`, in a process of its own. */
async function startMediaServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const fixtures = pathToFileURL(path.join(PROJECT_ROOT, 'test', 'support', 'media-fixtures.ts')).href;
  const script = `const { MediaServer } = await import(${JSON.stringify(fixtures)}); const server = await MediaServer.start(process.argv[1]); console.log('media server on ' + server.url(''));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8');
  const url = await within(
    30_000,
    'the media server to listen',
    new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (text: string) => {
        out += text;
        const match = /media server on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`the media server exited (${code}): ${out}`)));
    }),
  );
  return { url, child };
}

/** POST /play, until the page has drawn the item's first frame; checks it is the clip's. Then POST /stop. */
async function playThroughReceiver(page: Page, sender: SenderConnection, url: string): Promise<number> {
  // The page's mark of the new item's first frame (body data-video-frame-at) is awaited in the
  // page as it is made, not polled: polling is work on the page's main thread, beside the video's,
  // that the direct side does not do. And it is asked for before the clock starts: a DevTools
  // message sent after POST /play would be the browser's work while it plays the video.
  await page.evaluate(() => {
    const page = globalThis as unknown as PageGlobals;
    const { body } = page.document;
    const previous = body.dataset.videoItem;
    page.benchFrame = new Promise<number>((resolve) => {
      const observer = new page.MutationObserver(() => {
        const { videoItem, videoFrameAt } = body.dataset;
        if (videoItem === undefined || videoItem === previous || videoFrameAt === undefined) return;
        observer.disconnect();
        resolve(Number(videoFrameAt));
      });
      observer.observe(body, { attributes: true, attributeFilter: ['data-video-item', 'data-video-frame-at'] });
    });
  });
  const frame = within(10_000, 'the first frame of the video played through the receiver', page.evaluate(() => (globalThis as unknown as PageGlobals).benchFrame!));
  // The page answers DevTools messages in order: once this one is answered, the one above waits in the page.
  await page.evaluate(() => 0);
  const play = sender.prepare('POST /play', { 'Content-Type': 'text/parameters' }, `Content-Location: ${url}\nStart-Position: 0\n`);
  const started = wallNow();
  const status = await sender.send(play);
  verify(status === 200, `POST /play answered ${status}`);
  const frameAt = await frame;
  // Paused at once, so the screenshot shows the first seconds (red) whatever it costs.
  verify((await sender.send(sender.prepare('POST /rate?value=0'))) === 200, 'POST /rate?value=0');
  await verifyShown(page, 'the receiver');
  verify((await sender.send(sender.prepare('POST /stop'))) === 200, 'POST /stop');
  await page.waitForFunction(() => !(globalThis as unknown as PageGlobals).document.body.classList.contains('has-video'), undefined, { timeout: 5000 });
  return frameAt - started;
}

/**
 * A sender's connection to the receiver, open for the whole bench as a sender keeps its own
 * (a video plays while the connection that carried its POST /play is open): each request's bytes
 * are made before the clock starts and written at once, the answers read in order.
 */
class SenderConnection {
  private received = Buffer.alloc(0);
  private readonly answers: ((status: number) => void)[] = [];

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
      this.takeAnswers();
    });
  }

  static async open(port: number): Promise<SenderConnection> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new SenderConnection(socket);
  }

  /** The bytes of `request` (`METHOD /path`) with `headers` and `body`. */
  prepare(request: string, headers: Record<string, string> = {}, body = ''): Buffer {
    const lines = [`${request} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(body)}`];
    return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
  }

  /** Writes a prepared request; resolves with the status of its answer. */
  send(request: Buffer): Promise<number> {
    return new Promise((resolve) => {
      this.answers.push(resolve);
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private takeAnswers(): void {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.received.length < end + 4 + length) return;
      this.received = this.received.subarray(end + 4 + length);
      this.answers.shift()?.(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
    }
  }
}

/**
 * The same page plays the URL in its own element itself, shown as its video layer shows one, and
 * times it to its first frame; then pauses, checks what is shown, and empties the element as the
 * layer does when a video stops.
 */
async function playDirectly(page: Page, url: string): Promise<number> {
  // Made before the clock starts, shown as the page shows its own (screen.css #video while it plays).
  await page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const video = document.createElement('video');
    video.id = 'direct-video';
    video.playsInline = true;
    Object.assign(video.style, { position: 'absolute', inset: '0', zIndex: '3', width: '100%', height: '100%', objectFit: 'contain', background: '#000', display: 'block' });
    (document.body as unknown as { append(node: PageVideo): void }).append(video);
  });
  const started = wallNow();
  const frameAt = await page.evaluate(async (src) => {
    const { document, performance } = globalThis as unknown as PageGlobals;
    const video = document.getElementById('direct-video');
    document.body.classList.add('has-video');
    const drawn = new Promise<number>((resolve) => video.requestVideoFrameCallback(() => resolve(performance.timeOrigin + performance.now())));
    video.src = src;
    // As the layer plays (unmuted: the browser the bench drives lets a page play sound).
    await video.play();
    const at = await drawn;
    video.pause();
    return at;
  }, url);
  await verifyShown(page, 'the direct element', 'direct-video');
  await page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const video = document.getElementById('direct-video');
    video.removeAttribute('src');
    video.load();
    video.remove();
    document.body.classList.remove('has-video');
  });
  return frameAt - started;
}

/** The element decoded the clip and, paused on its first seconds, the screen shows them (red). */
async function verifyShown(page: Page, side: string, id: VideoId = 'video'): Promise<void> {
  const size = await page.evaluate((id) => {
    const video = (globalThis as unknown as PageGlobals).document.getElementById(id);
    return [video.videoWidth, video.videoHeight];
  }, id);
  verify(size[0] === CLIP_SIZE.width && size[1] === CLIP_SIZE.height, `${side} decoded the ${CLIP_SIZE.width}x${CLIP_SIZE.height} clip (got ${size.join('x')})`);
  const seen = await pictureCentre(page, 90);
  verify(colourDistance(seen, clipColourAt(0)) <= 40, `${side}'s first frame is the clip's red (saw rgb(${seen.join(',')}))`);
}
