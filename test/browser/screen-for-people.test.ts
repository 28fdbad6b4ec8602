// What a person sees and reads, on the built command and its screen page in Debian's headless
// Chromium: the idle screen names the receiver and says how to connect (the name to choose, the
// address and port) and that a PIN is needed where one is; a paused video says "Paused" with its
// position, and the status line names a paused video (the track audio plays:
// test/host/screen-status-line.test.ts); every line the command prints at start has one shape
// (text: time, level, message; --log-format json: one object a line), the TXT lines cut at info;
// the speaker profile prints no screen URL.
// Loopback only: the receivers run with --no-mdns on the loopback interface, the clip is served
// from 127.0.0.1, and the browser's own network services are off.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LOG_PREFIX, loopbackInterface, PROJECT_ROOT, ReceiverProcess, RECEIVER_COMMAND } from '../e2e/receiver-process';
import { launchChromium, openScreenPage } from '../support/chromium';
import { makeMediaFixtures, MediaServer, type MediaFixtures } from '../support/media-fixtures';

/** Bound on the waits for the page and the commands (a failure bound: a busy machine makes them slow, not wrong). */
const PAGE_MS = 30_000;
const SESSION = '2b7e1516-28ae-4d2a-a6ab-f7158809cf4f';

/** What the functions run in the page use of it (this file is type-checked without the DOM library). */
interface InPage {
  readonly document: { querySelector(selector: string): { readonly textContent: string | null } | null };
}

/** Lines of a command's output, the last (empty after a final line break) left out. */
const linesOf = (text: string) => text.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '');

let browser: Browser;
before(async () => {
  // Builds dist/ first when a source is newer, so the commands below are the code as it is now.
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('a receiver that requires a PIN, idle', () => {
  let receiver: ReceiverProcess;
  let page: Page;

  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--name', 'Hall Frame', '--profile', 'photo-frame', '--pin-required'] });
    page = await openScreenPage(browser, receiver.screenUrl!, '#idle .pairing:not([hidden])');
  });
  after(async () => {
    await receiver?.stop();
  });

  test('the idle screen names the receiver, says to choose it on a device, where it listens, and that a PIN is needed', async () => {
    assert.equal(await page.textContent('#idle .name'), 'Hall Frame');
    assert.equal(await page.textContent('#idle .hint'), 'Choose “Hall Frame” on your device');
    // --interface lo: loopback is the address a sender reaches it at.
    assert.equal(await page.textContent('#idle .address'), `127.0.0.1:${receiver.port}`);
    assert.match((await page.textContent('#idle .pairing')) ?? '', /^A PIN is needed/);
    assert.equal(await page.textContent('#status .activity'), 'Idle');
  });

  test('every line it printed at start is TIME LEVEL message, the TXT lines cut at info', () => {
    const lines = [...linesOf(receiver.stdout), ...linesOf(receiver.stderr)];
    assert.ok(lines.length >= 8, lines.join('\n'));
    for (const line of lines) assert.match(line, LOG_PREFIX, line);
    const services = linesOf(receiver.stdout).filter((line) => line.replace(LOG_PREFIX, '').startsWith('not advertising'));
    assert.ok(services.length >= 1, receiver.stdout);
    for (const line of services) {
      assert.match(line, /… \(\d+ more\)$/, line);
      assert.ok(line.replace(LOG_PREFIX, '').length <= 200 + '… (NNNN more)'.length, line);
    }
  });
});

describe('an open receiver playing a video, paused', () => {
  let fixtures: MediaFixtures;
  let media: MediaServer;
  let receiver: ReceiverProcess;
  let page: Page;

  before(async () => {
    fixtures = await makeMediaFixtures();
    media = await MediaServer.start(fixtures.dir);
    receiver = await ReceiverProcess.start({ args: ['--name', 'Den', '--media-allow', '127.0.0.0/8'] });
    page = await openScreenPage(browser, receiver.screenUrl!);
  });
  after(async () => {
    await receiver?.stop();
    await media?.close();
    fixtures?.remove();
  });

  async function post(target: string, body?: string): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${receiver.port}${target}`, { method: 'POST', headers: { 'X-Vendor-Session-ID': SESSION }, ...(body !== undefined && { body }) });
    assert.equal(response.status, 200, `POST ${target}`);
  }

  const pausedPosition = () => page.evaluate(() => (globalThis as unknown as InPage).document.querySelector('#video-paused .position')?.textContent ?? '');

  test('the idle screen says nothing of a PIN where none is needed', async () => {
    assert.equal(await page.textContent('#idle .hint'), 'Choose “Den” on your device');
    assert.equal(await page.isVisible('#idle .pairing'), false);
  });

  test('a paused video shows "Paused" and its position over the picture, and the status line says so; playing again takes it away', async () => {
    await post('/play', `Content-Location: ${media.url(fixtures.mp4)}\nStart-Position: 0\n`);
    await page.waitForSelector('body[data-video-frame-at]', { timeout: PAGE_MS });
    assert.equal(await page.isVisible('#video-paused'), false, 'a playing video says nothing of a pause');
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.querySelector('#status .activity')?.textContent === 'Playing video', undefined, { timeout: PAGE_MS });
    await post('/scrub?position=3.5');
    await post('/rate?value=0');
    await page.waitForSelector('body.video-paused #video-paused:not([hidden])', { timeout: PAGE_MS });
    // The clip is 6 s long; the element stands at 3.5 s once the seek is done.
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.querySelector('#video-paused .position')?.textContent === '0:03 / 0:06', undefined, { timeout: PAGE_MS });
    assert.equal(await page.textContent('#video-paused .label'), 'Paused');
    assert.equal(await page.textContent('#status .activity'), 'Video paused');
    assert.equal(await pausedPosition(), '0:03 / 0:06');

    await post('/rate?value=1');
    await page.waitForSelector('#video-paused[hidden]', { state: 'attached', timeout: PAGE_MS });
    assert.equal(await page.textContent('#status .activity'), 'Playing video');
  });
});

describe('start-up lines', () => {
  test('the speaker profile prints no screen URL (it has no screen)', async () => {
    const speaker = await ReceiverProcess.start({ args: ['--profile', 'speaker', '--audio-out', 'none'] });
    try {
      assert.equal(speaker.screenUrl, undefined, speaker.stdout);
      assert.doesNotMatch(speaker.stdout, /screen on|screen page|http:\/\//, speaker.stdout);
      assert.equal(speaker.profile, 'speaker');
    } finally {
      await speaker.stop();
    }
  });

  test('--log-format json prints every line, the start-up lines and the log, as one {time, level, message} object', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vp-log-json-'));
    const child = spawn(
      process.execPath,
      [RECEIVER_COMMAND, '--no-mdns', '--interface', loopbackInterface(), '--port', '0', '--screen-port', '0', '--mirror-port', '0', '--ntp-port', '0', '--audio-out', 'none', '--data-dir', dataDir, '--log-level', 'debug', '--log-format', 'json'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (err += text));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // Started once both services are said (the last start-up lines).
      const deadline = Date.now() + PAGE_MS;
      while ((out.match(/not advertising/g) ?? []).length < 2) {
        assert.ok(Date.now() < deadline, `not started within ${PAGE_MS} ms:\n${out}\n${err}`);
        assert.equal(child.exitCode, null, `exited:\n${out}\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      const lines = [...linesOf(out), ...linesOf(err)];
      for (const line of lines) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        assert.deepEqual(Object.keys(entry), ['time', 'level', 'message'], line);
        assert.match(String(entry.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
        assert.ok(['error', 'warn', 'info', 'debug'].includes(String(entry.level)), line);
        assert.equal(typeof entry.message, 'string', line);
      }
      const messages = lines.map((line) => (JSON.parse(line) as { message: string }).message);
      assert.ok(messages.some((message) => /^listening on 127\.0\.0\.1:\d+ \(HTTP and RTSP\)$/.test(message)), out);
      // debug keeps the TXT record whole.
      assert.ok(messages.some((message) => /^not advertising \(--no-mdns\) "Receiver" \S+ port \d+: deviceid=.* pk=[0-9a-f]{64}/.test(message)), out);
      assert.ok(messages.some((message) => message.startsWith('SIGTERM: stopping')), err);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
