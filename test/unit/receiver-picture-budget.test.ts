// The picture budget (src/receiver/media/picture-budget.ts): reservations against one limit, the
// reclaimers asked before a refusal, shared grants counted once, trims, the screen's share.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PictureBudget } from '../../src/receiver/media/picture-budget';

function granted(budget: PictureBudget, bytes: number, what = 'a picture') {
  const reservation = budget.reserve(bytes, what);
  assert.ok(reservation.granted, `${what}: ${reservation.granted ? '' : reservation.reason}`);
  return reservation.grant;
}

test('grants reservations up to the limit and refuses past it, naming limits.pictureBudgetBytes and what asked', () => {
  const budget = new PictureBudget(1000);
  granted(budget, 600);
  granted(budget, 400);
  assert.equal(budget.usedBytes, 1000);
  const refused = budget.reserve(1, 'PUT /photo of 1 bytes');
  assert.deepEqual(refused, { granted: false, reason: 'PUT /photo of 1 bytes needs 1 bytes; 1000 of limits.pictureBudgetBytes (1000) are held by other pictures' });
  assert.equal(budget.usedBytes, 1000, 'a refusal holds nothing');
});

test('a picture larger than the whole budget is refused without asking anyone to give back', () => {
  const budget = new PictureBudget(1000);
  let asked = 0;
  budget.addReclaimer(() => asked++);
  const refused = budget.reserve(1001, 'a slideshow picture fetch');
  assert.equal(refused.granted, false);
  assert.match(refused.granted ? '' : refused.reason, /more than limits\.pictureBudgetBytes \(1000\)/);
  assert.equal(asked, 0);
});

test('reclaimers give back before a refusal, told how many bytes are missing', () => {
  const budget = new PictureBudget(1000);
  const cached = [granted(budget, 300), granted(budget, 300), granted(budget, 300)];
  const told: number[] = [];
  budget.addReclaimer((needed) => {
    told.push(needed);
    // Gives back the oldest until enough is free, as the photo cache does.
    while (budget.freeBytes < 500 && cached.length) budget.release(cached.shift());
  });
  granted(budget, 500);
  assert.deepEqual(told, [400]);
  assert.equal(budget.usedBytes, 800);
  assert.equal(cached.length, 1);
});

test('a grant shared by several holders is counted once and freed with the last', () => {
  const budget = new PictureBudget(1000);
  const grant = granted(budget, 700);
  budget.share(grant);
  budget.shown(grant);
  assert.equal(budget.usedBytes, 700);
  budget.release(grant);
  budget.release(grant);
  assert.equal(budget.usedBytes, 700, 'the screen still holds it');
  budget.shown(undefined);
  assert.equal(budget.usedBytes, 0);
  budget.release(grant);
  assert.equal(budget.usedBytes, 0, 'releasing a freed grant does nothing');
  assert.throws(() => budget.share(grant), /shared after its release/);
});

test('the screen holds one picture: showing the next lets go of the one before, and listeners hear of it', () => {
  const budget = new PictureBudget(1000);
  let releases = 0;
  budget.onRelease(() => releases++);
  const first = granted(budget, 400);
  budget.shown(first);
  budget.release(first);
  const second = granted(budget, 500);
  budget.shown(second);
  budget.release(second);
  assert.equal(budget.usedBytes, 500);
  assert.equal(budget.screen, second);
  assert.equal(releases, 1);
});

test('a trim keeps what came of a larger reservation and frees the rest', () => {
  const budget = new PictureBudget(1000);
  let releases = 0;
  budget.onRelease(() => releases++);
  const grant = granted(budget, 800);
  budget.trim(grant, 300);
  assert.equal(budget.usedBytes, 300);
  assert.equal(grant.bytes, 300);
  budget.trim(grant, 900);
  assert.equal(budget.usedBytes, 300, 'a trim never grows');
  assert.equal(releases, 1);
  budget.release(grant);
  assert.equal(budget.usedBytes, 0);
});

test("a grant's picture goes to the budget's free with the last holder's release, once; a grant without one frees nothing", () => {
  const freed: Uint8Array[] = [];
  const budget = new PictureBudget(1000, (picture) => freed.push(picture));
  const picture = new Uint8Array(300);
  const grant = granted(budget, 300);
  grant.picture = picture;
  budget.share(grant); // the cache
  budget.shown(grant); // the screen
  budget.release(grant); // the upload
  budget.release(grant); // the cache
  assert.deepEqual(freed, [], 'the screen still holds it');
  budget.shown(granted(budget, 100));
  assert.equal(freed.length, 1);
  assert.equal(freed[0], picture);
  budget.release(grant);
  assert.equal(freed.length, 1, 'a release after the last frees nothing more');
  budget.release(granted(budget, 200));
  assert.equal(freed.length, 1, 'no picture, nothing to free');
});
