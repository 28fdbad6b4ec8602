// Which secret a pair-setup runs with (src/pairing/setup-code.ts): a password always; the public
// 3939 for transient pairing on an open receiver and a refusal where a PIN is required; a random
// PIN or the fixed one for normal pairing. And random PINs: four digits, each value as likely.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PairingError } from '../../src/pairing/errors';
import { RANDOM_PIN, randomPin, setupCodeFor, TRANSIENT_SETUP_CODE } from '../../src/pairing/setup-code';
import { TLV_ERROR } from '../../src/pairing/tlv-types';
import { seededRandom } from '../support/memory-ports';

test('the rule for each configuration and kind of pair-setup', () => {
  const open = { password: '', pin: '1234', pinRequired: false };
  assert.deepEqual(setupCodeFor(open, true), { kind: 'public', code: TRANSIENT_SETUP_CODE });
  assert.deepEqual(setupCodeFor(open, false), { kind: 'fixed', code: '1234' });
  assert.deepEqual(setupCodeFor({ ...open, pin: RANDOM_PIN }, false), { kind: 'random' });
  assert.deepEqual(setupCodeFor({ ...open, pin: RANDOM_PIN }, true), { kind: 'public', code: '3939' }, 'an open receiver keeps transient pairing');
  assert.deepEqual(setupCodeFor({ ...open, password: 'secret', pinRequired: true }, true), { kind: 'fixed', code: 'secret' });
  assert.throws(
    () => setupCodeFor({ ...open, pinRequired: true }, true),
    (error) => error instanceof PairingError && error.tlvError === TLV_ERROR.Unavailable && /public code 3939/.test(error.message),
  );
  assert.deepEqual(setupCodeFor({ ...open, pinRequired: true }, false), { kind: 'fixed', code: '1234' });
});

test('a random PIN is four digits, leading zeros kept, every digit used in each place', () => {
  const random = seededRandom(3);
  const seen = Array.from({ length: 4 }, () => new Set<string>());
  for (let i = 0; i < 400; i++) {
    const pin = randomPin(random);
    assert.match(pin, /^\d{4}$/);
    for (let place = 0; place < 4; place++) seen[place].add(pin[place]);
  }
  for (const digits of seen) assert.equal(digits.size, 10);
});

test('a random PIN draws again past the last whole range of 2^32 (no modulo bias)', () => {
  // 0xFFFFFFFF is past 429496 x 10000: drawn again; then 0x00002710 = 10000 -> 0000.
  const draws = [Uint8Array.of(0xff, 0xff, 0xff, 0xff), Uint8Array.of(0x00, 0x00, 0x27, 0x11)];
  assert.equal(randomPin(() => draws.shift()!), '0001');
  assert.equal(draws.length, 0);
});
