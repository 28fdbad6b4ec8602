// The shared vectors of test/vectors/ against one CryptoKernels build: Node runs them for the
// portable build (crypto-vectors.test.ts), the XS test host for the portable build and the C
// natives (xs-host.test.ts). Every operation of the contract, at the sizes pairing uses, plus
// the inputs that must be refused; through the wrappers pairing calls (keys.ts, hkdf.ts,
// rsa.ts, channel.ts) as well as raw.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, fromHex, toHex } from '../../src/bytes';
import { createControlChannel, createSenderChannel } from '../../src/pairing/channel';
import type { CryptoKernels } from '../../src/pairing/crypto-kernels';
import { PairingError } from '../../src/pairing/errors';
import { hkdfSha512 } from '../../src/pairing/hkdf';
import { ed25519Verify, x25519Shared } from '../../src/pairing/keys';
import { parseRsaPrivateKey, rsaSignSha1 } from '../../src/pairing/rsa';
import channel from '../vectors/control-channel.json' with { type: 'json' };
import vectors from '../vectors/crypto-kernels.json' with { type: 'json' };
import hkdf from '../vectors/hkdf-sha512.json' with { type: 'json' };
import rsa from '../vectors/rsa-sha1.json' with { type: 'json' };

const big = (text: string): bigint => (text.startsWith('-') ? -BigInt('0x' + text.slice(1)) : BigInt('0x' + text));

/** Registers the vector tests of `crypto`, named after it. */
export function registerCryptoVectorTests(crypto: CryptoKernels): void {
  const name = (what: string) => `${crypto.name}: ${what}`;

  test(name('SHA-512 and HMAC-SHA-512 (keys shorter and longer than a block)'), () => {
    for (const vector of vectors.sha512) assert.equal(toHex(crypto.sha512([fromHex(vector.data)])), vector.digest, `${vector.data.length / 2} bytes`);
    const data = fromHex(vectors.sha512[7].data);
    assert.equal(toHex(crypto.sha512([data.subarray(0, 3), data.subarray(3, 500), data.subarray(500)])), vectors.sha512[7].digest, 'in parts');
    for (const vector of vectors.hmacSha512) {
      assert.equal(toHex(crypto.hmacSha512(fromHex(vector.key), fromHex(vector.data))), vector.mac, `key of ${vector.key.length / 2} bytes`);
    }
  });

  test(name('HKDF-SHA-512 of every pairing label'), () => {
    for (const vector of hkdf.cases) {
      assert.equal(toHex(hkdfSha512(fromHex(vector.ikm), vector.salt, vector.info, vector.length, crypto)), vector.okm, vector.name);
    }
  });

  test(name('X25519 public keys and shared secrets; low-order peers give none'), () => {
    for (const vector of vectors.x25519) {
      assert.equal(toHex(crypto.x25519PublicKey(fromHex(vector.secret))), vector.public);
      assert.equal(toHex(crypto.x25519Shared(fromHex(vector.secret), fromHex(vector.peer))!), vector.shared);
    }
    const secret = fromHex(vectors.x25519[0].secret);
    for (const peer of vectors.x25519LowOrder) {
      assert.equal(crypto.x25519Shared(secret, fromHex(peer)), undefined, peer);
      assert.throws(() => x25519Shared(secret, fromHex(peer), crypto), (error: unknown) => error instanceof PairingError && /all-zero/.test(error.message));
    }
  });

  test(name('Ed25519 keys and signatures exactly; tampered, non-canonical and foreign ones refused'), () => {
    for (const vector of vectors.ed25519) {
      const seed = fromHex(vector.seed);
      const message = fromHex(vector.message);
      assert.equal(toHex(crypto.ed25519PublicKey(seed)), vector.public);
      assert.equal(toHex(crypto.ed25519Sign(seed, message)), vector.signature);
      assert.equal(crypto.ed25519Verify(fromHex(vector.public), message, fromHex(vector.signature)), true);
    }
    for (const vector of vectors.ed25519Invalid) {
      assert.equal(crypto.ed25519Verify(fromHex(vector.public), fromHex(vector.message), fromHex(vector.signature)), false, vector.why);
      assert.equal(ed25519Verify(fromHex(vector.public), fromHex(vector.message), fromHex(vector.signature), crypto), false, vector.why);
    }
  });

  test(name('modPow at SRP and RSA sizes, odd and even moduli, a base above the modulus, a negative base'), () => {
    for (const vector of vectors.modPow) {
      assert.equal(crypto.modPow(big(vector.base), big(vector.exponent), big(vector.modulus)).toString(16), vector.result, `${vector.base.slice(0, 8)}^${vector.exponent.slice(0, 8)}`);
    }
    assert.throws(() => crypto.modPow(2n, 3n, 0n), RangeError);
    assert.throws(() => crypto.modPow(2n, -1n, 5n), RangeError);
    assert.equal(crypto.modPow(9n, 9n, 1n), 0n);
  });

  test(name('RSA-SHA1 signatures of the device key (CRT, on modPow) equal OpenSSL\'s'), () => {
    const key = parseRsaPrivateKey(rsa.pkcs8Pem);
    for (const vector of rsa.signatures) assert.equal(toHex(rsaSignSha1(key, fromHex(vector.message), crypto)), vector.signature);
  });

  test(name('frame kernel: every single-frame vector, in place into the output given, tampering refused'), () => {
    const { frame } = crypto;
    for (const vector of channel.kernel) {
      const key = fromHex(vector.key);
      const counter = BigInt(vector.counter);
      const aad = fromHex(vector.aad);
      const plaintext = fromHex(vector.plaintext);
      const body = new Uint8Array(plaintext.length + 16);
      assert.equal(frame.seal(key, counter, aad, plaintext, body), body);
      assert.equal(toHex(body), vector.ciphertextAndTag, `counter ${vector.counter}`);
      const opened = new Uint8Array(plaintext.length);
      assert.equal(frame.open(key, counter, aad, body, opened), opened);
      assert.equal(toHex(opened), vector.plaintext);
      const tampered = body.slice();
      tampered[tampered.length - 1] ^= 0x80;
      assert.throws(() => frame.open(key, counter, aad, tampered), (error: unknown) => error instanceof PairingError && /authentication tag does not match/.test(error.message));
      assert.throws(() => frame.open(key, counter + 1n, aad, body), PairingError);
    }
    // Not a tag mismatch, and never called one.
    const notTag = (error: unknown) => error instanceof PairingError && !/authentication tag/.test(error.message);
    assert.throws(() => frame.open(new Uint8Array(16), 0n, new Uint8Array(2), new Uint8Array(20)), notTag);
    assert.throws(() => frame.open(new Uint8Array(32), 0n, new Uint8Array(2), new Uint8Array(15)), notTag);
    assert.throws(() => frame.seal(new Uint8Array(32), 1n << 64n, new Uint8Array(2), new Uint8Array(1)), notTag);
  });

  test(name('the control channel seals and opens every message of control-channel.json exactly'), () => {
    const shared = fromHex(channel.sharedSecret);
    const receiver = createControlChannel(shared, crypto);
    for (const message of channel.receiverToSender) assert.equal(toHex(receiver.seal(fromHex(message.plaintext))), message.framed);
    const sender = createSenderChannel(shared, crypto);
    for (const message of channel.senderToReceiver) assert.equal(toHex(sender.seal(fromHex(message.plaintext))), message.framed);
    const opened = createControlChannel(shared, crypto).open(concat(...channel.senderToReceiver.map((message) => fromHex(message.framed))));
    assert.equal(toHex(concat(...opened)), channel.senderToReceiver.map((message) => message.plaintext).join(''));
  });
}
