// The portable build's hashes (src/pairing/portable-hash-kernels.ts), which the Node host takes
// at start without the curves: SHA-512 and HMAC-SHA-512 give the standard's answers, a message in
// parts hashes as the whole, and the portable build's kernels are these same functions.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex, utf8Encode } from '../../src/bytes';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { portableHashKernels } from '../../src/pairing/portable-hash-kernels';

test('SHA-512 of "abc" (FIPS 180-2 C.1), whole and in parts', () => {
  const digest = 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f';
  assert.equal(toHex(portableHashKernels.sha512([utf8Encode('abc')])), digest);
  assert.equal(toHex(portableHashKernels.sha512([utf8Encode('a'), new Uint8Array(0), utf8Encode('bc')])), digest);
});

test('HMAC-SHA-512 of RFC 4231 test case 1', () => {
  const mac = portableHashKernels.hmacSha512(fromHex('0b'.repeat(20)), utf8Encode('Hi There'));
  assert.equal(toHex(mac), '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854');
});

test('the portable build hashes with these functions', () => {
  assert.equal(portableCryptoKernels.sha512, portableHashKernels.sha512);
  assert.equal(portableCryptoKernels.hmacSha512, portableHashKernels.hmacSha512);
});
