// Slideshows end to end (spec 2.6-2.8, 3, 4.1, 6, 8): the real `vendorplay-receiver` command on
// loopback and the real `vendorplay-send slideshow` command on a folder of JPEGs made here with
// jpeg-js. Checked at the sender: the events in order; at the receiver: its log naming each
// asset it shows, one after another, never sooner than a slide duration apart, fetched over three
// connections. A slideshow is stopped once the receiver has shown what a test needs (a person's
// Ctrl-C), not after a set time, which a busy machine would fill with fewer slides.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import jpeg from 'jpeg-js';
import { PROMPT_MS, ReceiverProcess, runSender as send, until } from './receiver-process';

/** A last bound on the suite (a few seconds on a quiet machine), beyond the bound on every wait inside it. */
const BOUND = { timeout: 240_000 };
/** Bound on one sender run (it stops when the test has seen what it needs). */
const RUN_MS = 60_000;

/** Small real JPEGs of different colours, named so they sort in order. */
function writePictures(dir: string, count: number): void {
  const width = 32;
  const height = 24;
  for (let n = 0; n < count; n++) {
    const data = Buffer.alloc(width * height * 4);
    for (let pixel = 0; pixel < width * height; pixel++) {
      data[pixel * 4] = (n * 90) & 0xff;
      data[pixel * 4 + 1] = (255 - n * 60) & 0xff;
      data[pixel * 4 + 2] = pixel & 0xff;
      data[pixel * 4 + 3] = 0xff;
    }
    writeFileSync(path.join(dir, `picture-${n + 1}.jpg`), jpeg.encode({ data, width, height }, 85).data);
  }
  writeFileSync(path.join(dir, 'notes.txt'), 'not a picture: skipped by the sender\n');
}

/** `event: slideshow playing (last asset 1)` lines, as `playing 1`. */
function eventsOf(stdout: string): string[] {
  return [...stdout.matchAll(/^event: slideshow (\w+) \(last asset (\d+)\)$/gm)].map((match) => `${match[1]} ${match[2]}`);
}

/** The receiver's `slideshow: showing asset N` log lines since `from`: asset ids and times. */
function shownSince(log: string, from: number): { id: number; at: number }[] {
  return [...log.slice(from).matchAll(/^(\S+) info +slideshow: showing asset (\d+) /gm)].map((match) => ({ id: Number(match[2]), at: Date.parse(match[1]) }));
}

describe('vendorplay-send slideshow against vendorplay-receiver', BOUND, () => {
  let receiver: ReceiverProcess;
  let pictures: string;

  before(async () => {
    pictures = mkdtempSync(path.join(tmpdir(), 'vendorplay-pictures-'));
    writePictures(pictures, 3);
    receiver = await ReceiverProcess.start({ args: ['--name', 'Frame', '--screen-port', '0'] });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(pictures, { recursive: true, force: true });
  });

  /** Waits until the receiver has shown `count` slides since log offset `from`, then stops the sender as a person does (Ctrl-C). */
  const stopAfterShown = (from: number, count: number) => async (_output: () => string, child: ChildProcess) => {
    await until(() => `${shownSince(receiver.stderr, from).length} of ${count} slides shown:\n${receiver.stderr.slice(from)}`, () => shownSince(receiver.stderr, from).length >= count, RUN_MS);
    child.kill('SIGINT');
  };

  test('the sender gets loading, playing, stopped in order; the receiver shows asset after asset, a slide duration apart', async () => {
    const from = receiver.stderr.length;
    const run = await send(['slideshow', `127.0.0.1:${receiver.port}`, pictures, '--duration', '1', '--theme', 'Cube'], RUN_MS, stopAfterShown(from, 4));
    assert.equal(run.code, 0, run.stderr);
    const events = eventsOf(run.stdout);
    const shown = shownSince(receiver.stderr, from);
    // Asset after asset from asset 1, each the next, never sooner than the slide duration (1 s;
    // a busy machine only makes a slide later).
    assert.ok(shown.length >= 4, `shown: ${JSON.stringify(shown)}\n${receiver.stderr.slice(from)}`);
    assert.deepEqual(shown.map((slide) => slide.id), shown.map((_, index) => index + 1));
    for (let i = 1; i < shown.length; i++) {
      const gap = shown[i].at - shown[i - 1].at;
      assert.ok(gap >= 900, `slide ${shown[i].id} followed ${gap} ms after the one before`);
    }
    const last = shown[shown.length - 1].id;
    assert.deepEqual(events, ['loading 0', 'playing 1', `stopped ${last}`]);
    // The sender served those assets from the folder, in name order, over and over.
    assert.match(run.stdout, /^asset 1: picture-1\.jpg \(/m);
    assert.match(run.stdout, /^asset 4: picture-1\.jpg \(/m);
    assert.doesNotMatch(run.stdout, /notes\.txt/);
    // spec 8: the pictures came over three connections in parallel.
    const peers = new Set([...receiver.stderr.slice(from).matchAll(/slideshow: GET \/slideshows\/1\/assets\/1 on (\S+)/g)].map((match) => match[1]));
    assert.equal(peers.size, 3, `fetched on ${[...peers].join(', ')}`);
    // The theme is the transition of every slide; activity while playing, idle after.
    assert.match(receiver.stderr.slice(from), /showing asset 1 \(key 1, \d+ bytes, theme Cube\)/);
    const activity = [...receiver.stderr.slice(from).matchAll(/activity: (\w+)/g)].map((match) => match[1]);
    assert.deepEqual(activity, ['receivingVideo', 'idle']);
  });

  test('vendorplay-send stop from another process ends a running slideshow; its sender is told and exits', async () => {
    const from = receiver.stderr.length;
    const run = await send(['slideshow', `127.0.0.1:${receiver.port}`, pictures, '--duration', '1', '--connections', '1'], RUN_MS, async (output) => {
      await until(() => `no playing event; sender printed:\n${output()}`, () => /^event: slideshow playing/m.test(output()), RUN_MS);
      const stopped = await send(['stop', `127.0.0.1:${receiver.port}`], RUN_MS);
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stdout, /^stopped 127\.0\.0\.1:\d+: 200 OK$/m);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(eventsOf(run.stdout).map((event) => event.split(' ')[0]), ['loading', 'playing', 'stopped']);
    assert.match(run.stdout, /^the receiver stopped the slideshow$/m);
    assert.match(receiver.stderr.slice(from), /slideshow: stopped \(POST \/stop\)/);
  });

  test('the apple dialect and one connection work the same', async () => {
    const from = receiver.stderr.length;
    const run = await send(['slideshow', `127.0.0.1:${receiver.port}`, pictures, '--duration', '1', '--connections', '1', '--dialect', 'apple'], RUN_MS, stopAfterShown(from, 2));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(eventsOf(run.stdout).slice(0, 2), ['loading 0', 'playing 1']);
    assert.match(eventsOf(run.stdout).at(-1) ?? '', /^stopped [2-9]$/);
    assert.deepEqual(shownSince(receiver.stderr, from).map((slide) => slide.id).slice(0, 2), [1, 2]);
  });

  test('--stop-after ends the slideshow by itself: the sender stops it and exits', async () => {
    const from = receiver.stderr.length;
    const run = await send(['slideshow', `127.0.0.1:${receiver.port}`, pictures, '--duration', '1', '--stop-after', '0.5'], RUN_MS);
    assert.equal(run.code, 0, run.stderr);
    // Whether a slide came before the stop depends on how busy the machine is; the stop does not.
    assert.equal(eventsOf(run.stdout)[0], 'loading 0');
    assert.match(eventsOf(run.stdout).at(-1) ?? '', /^stopped \d+$/);
    await receiver.waitForLog(/slideshow: stopped/, PROMPT_MS);
    assert.match(receiver.stderr.slice(from), /slideshow: stopped/);
  });

  test('clear errors: no receiver, no pictures, bad arguments', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'vendorplay-empty-'));
    try {
      const none = await send(['slideshow', `127.0.0.1:${receiver.port}`, empty]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no JPEG files \(\.jpg, \.jpeg\) in /);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    const refused = await send(['stop', '127.0.0.1:1']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /cannot connect to 127\.0\.0\.1:1: connection refused/);
    const usage = await send(['slideshow', `127.0.0.1:${receiver.port}`]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /the folder of JPEG files is missing/);
    assert.doesNotMatch(usage.stderr, /^Usage:/m, 'one line and a pointer to --help, not the whole help');
    const help = await send(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /vendorplay-send slideshow HOST:PORT DIR/);
  });
});
