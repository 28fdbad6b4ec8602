// By hand, the proof of a board's memory in the Moddable simulator: against the photo frame built
// with that board's XS sizes and no growth (`npm run build:moddable -- --board-sizes
// esp32/moddable_six ... memoryReportSeconds=1`; hosts/moddable/README.md has the steps), this
//   1. pairs with hap-controller (pair-setup M1-M6 with the PIN, pair-verify, encrypted GET
//      /server-info), then verifies again with our client and talks through that channel;
//   2. sends PHOTOS pictures by PUT /photo through it, their sizes cycling from the profile's
//      limit (maxPhotoBytes) down to an eighth of it, every other one with an asset key (so the
//      cache fills and gives way), with RTSP GET /info between them; then one picture over the
//      limit on a connection of its own, which must be refused 413 naming the limit;
//   3. runs SLIDESHOWS slideshows with `vendorplay-send slideshow` (the command users run) of
//      pictures at the largest size a slideshow reply may carry, each until the receiver has
//      shown every picture once, then stops it (Ctrl-C, as a person does). What it has shown is
//      read from the simulator's log (MCSIM_LOG, its `slideshow: showing asset` lines): the
//      sender hears `playing` once while pictures keep coming in time, so its events cannot say.
//   With STREAMED_PHOTOS (JPEG files, comma-separated), first: each is PUT without an asset key
//   through the paired channel (a picture drawn as it arrives: limits.maxStreamedPhotoBytes) and
//   must be answered 200 with the screen's `drawn as it arrived` line in the log; then the head of
//   STREAMED_OVER (a file over that limit) on a connection of its own, which must be refused 413
//   on its head naming limits.maxStreamedPhotoBytes.
// It fails at the first answer that is not what a receiver within its budget gives. The memory
// figures are the simulator's log (memory: ... (peak N)); this prints one line per step.
// Usage (inside the receiver's network namespace):
//   [STREAMED_PHOTOS=a.jpg,b.jpg STREAMED_OVER=c.jpg] MCSIM_LOG=/path/to/mcsim.log node --import tsx test/kernels/mcsim-board-proof.ts PORT PIN [photos=100] [slideshows=10]
//     [maxPhotoBytes=2097152] [slideshowPictureBytes=2097152] [picturesPerSlideshow=3]

import { spawn } from 'node:child_process';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PairMethods, type PairingData } from 'hap-controller';
import { utf8Decode } from '../../src/bytes';
import { TLV } from '../../src/pairing/tlv-types';
import { PairVerifyClient, replyItems } from '../support/pairing-client';
import { HOST, PinClient, Sender, photo } from './mcsim-client';

const [portText, PIN = '3939', photosText = '100', slideshowsText = '10', maxPhotoText = String(2 << 20), slideText = String(2 << 20), perShowText = '3'] = process.argv.slice(2);
const PORT = Number(portText);
const PHOTOS = Number(photosText);
const SLIDESHOWS = Number(slideshowsText);
const MAX_PHOTO_BYTES = Number(maxPhotoText);
const SLIDESHOW_PICTURE_BYTES = Number(slideText);
const PICTURES_PER_SLIDESHOW = Number(perShowText);
/** The sizes photos cycle through, as shares of the limit. */
const PHOTO_SHARES = [1, 0.5, 0.25, 1, 0.125, 0.75];
const SENDER_COMMAND = path.join(import.meta.dirname, '..', '..', 'bin', 'vendorplay-send.js');
const MCSIM_LOG = process.env.MCSIM_LOG ?? '';
const STREAMED_PHOTOS = (process.env.STREAMED_PHOTOS ?? '').split(',').filter((file) => file !== '');
const STREAMED_OVER = process.env.STREAMED_OVER;

/** The simulator's log so far. */
function simulatorLog(): string {
  return readFileSync(MCSIM_LOG, 'latin1');
}

const random = (n: number) => new Uint8Array(randomBytes(n));

function step(what: string, started: number): void {
  console.log(`${new Date().toISOString()} ${what} (${Date.now() - started} ms)`);
}

function expect(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

/** hap-controller pairs; our client verifies with what it stored and returns the encrypted sender. */
async function pair(): Promise<Sender> {
  let started = Date.now();
  const hap = new PinClient('vendorplay-board-proof', HOST, PORT);
  await hap.pairSetup(PIN, PairMethods.PairSetup);
  const paired: PairingData = hap.getLongTermData()!;
  const verified = new PinClient('vendorplay-board-proof', HOST, PORT, paired);
  const connection = await (verified as unknown as { getDefaultVerifiedConnection(): Promise<{ get(path: string): Promise<{ statusCode: number }>; close(): void }> }).getDefaultVerifiedConnection();
  const info = await connection.get('/server-info');
  expect(info.statusCode === 200, `hap-controller's encrypted GET /server-info: ${info.statusCode}`);
  connection.close();
  step('hap-controller pair-setup M1-M6, pair-verify, encrypted GET /server-info 200', started);

  started = Date.now();
  const hex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'));
  const client = new PairVerifyClient(
    { id: utf8Decode(hex(paired.iOSDevicePairingID)), keys: { secretKey: hex(paired.iOSDeviceLTSK).slice(0, 32), publicKey: hex(paired.iOSDeviceLTPK) } },
    { id: utf8Decode(hex(paired.AccessoryPairingID)), publicKey: hex(paired.AccessoryLTPK) },
    random,
  );
  const sender = await Sender.connect(PORT);
  const m2 = await sender.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m1() });
  expect(m2.head.status === 200 && !replyItems(m2.body).get(TLV.Error), `our pair-verify M2: ${m2.head.status}`);
  const m4 = await sender.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m3(m2.body) });
  expect(!replyItems(m4.body).get(TLV.Error), 'our pair-verify: M4 carries an error');
  sender.encrypt(client.channel());
  step('our pair-verify with the stored identities: encrypted from here', started);
  return sender;
}

/** PHOTOS pictures through the paired channel, then one over the limit on a plain connection. */
async function sendPhotos(sender: Sender): Promise<void> {
  // A few pictures per size, made once (noise JPEGs take a while at 2 MB): each is sent many times.
  const pictures = new Map<number, Uint8Array[]>();
  for (const share of new Set(PHOTO_SHARES)) pictures.set(share, [photo(Math.floor(MAX_PHOTO_BYTES * share)), photo(Math.floor(MAX_PHOTO_BYTES * share * 0.97))]);
  let bytes = 0;
  const started = Date.now();
  for (let n = 0; n < PHOTOS; n++) {
    const share = PHOTO_SHARES[n % PHOTO_SHARES.length];
    const picture = pictures.get(share)![n % 2];
    const headers: [string, string][] = n % 2 === 0 ? [['X-Apple-AssetKey', `board-proof-${n % 12}`]] : [];
    const sent = Date.now();
    const put = await sender.request('PUT', '/photo', { body: picture, contentType: 'image/jpeg', headers });
    expect(put.head.status === 200, `photo ${n + 1} of ${picture.length} bytes: ${put.head.status} ${utf8Decode(put.body)}`);
    bytes += picture.length;
    const info = await sender.request('GET', '/info', { protocol: 'RTSP' });
    expect(info.head.status === 200, `RTSP GET /info after photo ${n + 1}: ${info.head.status}`);
    step(`photo ${n + 1}/${PHOTOS}: ${picture.length} bytes${headers.length ? ' (asset key)' : ''} 200, GET /info 200`, sent);
  }
  step(`${PHOTOS} photos, ${bytes} bytes, every one 200`, started);

  const over = Date.now();
  const plain = await Sender.connect(PORT);
  // cacheOnly: a picture to keep is read whole, up to maxPhotoBytes (one shown without a key is
  // drawn as it arrives, up to maxStreamedPhotoBytes).
  const refused = await plain.request('PUT', '/photo', { body: random(MAX_PHOTO_BYTES + 1024), contentType: 'image/jpeg', headers: [['X-Apple-AssetKey', 'board-proof-over'], ['X-Apple-AssetAction', 'cacheOnly']] });
  plain.close();
  expect(refused.head.status === 413 && /limit|maxPhotoBytes|\d+ bytes/.test(utf8Decode(refused.body)), `a photo over the limit: ${refused.head.status} ${utf8Decode(refused.body)}`);
  step(`a photo of ${MAX_PHOTO_BYTES + 1024} bytes: 413 "${utf8Decode(refused.body).trim()}"`, over);
}

/** Runs `vendorplay-send slideshow` until the receiver reports the last picture shown, then Ctrl-C. */
function runSlideshow(dir: string, number: number): Promise<void> {
  const started = Date.now();
  const logFrom = simulatorLog().length;
  const shown = () => simulatorLog().slice(logFrom).match(/slideshow: showing asset \d+/g)?.length ?? 0;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SENDER_COMMAND, 'slideshow', `${HOST}:${PORT}`, dir, '--duration', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`slideshow ${number}: not every picture shown in 20 minutes; stdout: ${stdout} stderr: ${stderr}`));
    }, 20 * 60_000);
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    const watch = setInterval(() => {
      if (stopping || shown() < PICTURES_PER_SLIDESHOW) return;
      stopping = true;
      clearInterval(watch);
      child.kill('SIGINT');
    }, 100);
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      if (!stopping) reject(new Error(`slideshow ${number}: the sender exited (${code ?? signal}) before every picture was shown; stdout: ${stdout} stderr: ${stderr}`));
      else {
        step(`slideshow ${number}/${SLIDESHOWS}: ${PICTURES_PER_SLIDESHOW} pictures of ${SLIDESHOW_PICTURE_BYTES} bytes shown, stopped (sender exit ${code ?? signal})`, started);
        resolve();
      }
    });
  });
}

/** STREAMED_PHOTOS through the paired channel, each drawn as it arrives; then STREAMED_OVER's head. */
async function sendStreamedPhotos(sender: Sender): Promise<void> {
  for (const file of STREAMED_PHOTOS) {
    const picture = new Uint8Array(readFileSync(file));
    const logFrom = simulatorLog().length;
    const sent = Date.now();
    const put = await sender.request('PUT', '/photo', { body: picture, contentType: 'image/jpeg' });
    expect(put.head.status === 200, `streamed photo ${file} of ${picture.length} bytes: ${put.head.status} ${utf8Decode(put.body)}`);
    const drawn = simulatorLog().slice(logFrom).match(/screen: photo \d+ drawn as it arrived[^\n]*/)?.[0];
    expect(drawn !== undefined, `streamed photo ${file}: 200 but no "drawn as it arrived" line in the log`);
    step(`streamed photo ${path.basename(file)}: ${picture.length} bytes 200; ${drawn}`, sent);
  }
  if (!STREAMED_OVER) return;
  const over = Date.now();
  const size = readFileSync(STREAMED_OVER).length;
  const answer = await headOnlyAnswer(`PUT /photo HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: image/jpeg\r\nContent-Length: ${size}\r\n\r\n`);
  expect(/^HTTP\/1\.1 413 /.test(answer) && /limits\.maxStreamedPhotoBytes/.test(answer), `a streamed photo over the limit: ${answer}`);
  step(`streamed photo ${path.basename(STREAMED_OVER)} of ${size} bytes, its head alone: "${answer.split('\r\n')[0]}", "${answer.slice(answer.indexOf('\r\n\r\n') + 4).trim()}"`, over);
}

/** Sends a request head alone and returns what comes back until the receiver closes (a refusal on the head). */
function headOnlyAnswer(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: PORT, host: HOST }, () => socket.write(head));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to a head alone in 30 s: ${answer}`));
    }, 30_000);
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

async function main(): Promise<void> {
  expect(MCSIM_LOG !== '', 'MCSIM_LOG: the path of the simulator\'s log (what the slideshows showed is read there)');
  const sender = await pair();
  await sendStreamedPhotos(sender);
  await sendPhotos(sender);
  sender.close();
  const dir = mkdtempSync(path.join(tmpdir(), 'board-proof-slides-'));
  try {
    for (let n = 0; n < PICTURES_PER_SLIDESHOW; n++) writeFileSync(path.join(dir, `slide-${n + 1}.jpg`), photo(SLIDESHOW_PICTURE_BYTES - n * 1024));
    const started = Date.now();
    for (let n = 1; n <= SLIDESHOWS; n++) await runSlideshow(dir, n);
    step(`${SLIDESHOWS} slideshows`, started);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const after = await Sender.connect(PORT);
  const info = await after.request('GET', '/info', { protocol: 'RTSP' });
  after.close();
  expect(info.head.status === 200, `GET /info at the end: ${info.head.status}`);
  console.log('done: every step answered as a receiver within its budget answers');
}

main().catch((error: unknown) => {
  console.error(`failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
