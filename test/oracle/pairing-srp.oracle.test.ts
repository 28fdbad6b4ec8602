// Pairing primitives against independent implementations (Node only): npm fast-srp-hap (the
// SRP of HomeKit-style pairing clients) as the client of our SRP server, and Node's OpenSSL
// chacha20-poly1305 and hkdfSync against our control channel, frame by frame.

import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { SRP, SrpClient, SrpServer as ReferenceServer } from 'fast-srp-hap';
import { createControlChannel, createSenderChannel } from '../../src/pairing/channel';
import { PairingError } from '../../src/pairing/errors';
import { SrpServer } from '../../src/pairing/srp';
import { TLV_ERROR } from '../../src/pairing/tlv-types';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const random = (n: number) => new Uint8Array(randomBytes(n));
const identity = Buffer.from('Pair-Setup');

describe('SRP server against the fast-srp-hap client', () => {
  test('the client verifies our M2 and both sides hold the same session key', () => {
    for (let round = 0; round < 4; round++) {
      const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', random });
      const client = new SrpClient(SRP.params.hap, Buffer.from(server.salt), identity, Buffer.from('3939'), randomBytes(32));
      client.setB(Buffer.from(server.publicKey));
      server.computeSharedSecret(new Uint8Array(client.computeA()));
      const M2 = server.verifyClientProof(new Uint8Array(client.computeM1()));
      client.checkM2(Buffer.from(M2)); // throws when M2 is wrong
      assert.deepEqual(Buffer.from(server.sessionKey), client.computeK());
    }
  });

  test('a client with another setup code is refused with Authentication', () => {
    const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', random });
    const client = new SrpClient(SRP.params.hap, Buffer.from(server.salt), identity, Buffer.from('3940'), randomBytes(32));
    client.setB(Buffer.from(server.publicKey));
    server.computeSharedSecret(new Uint8Array(client.computeA()));
    assert.throws(
      () => server.verifyClientProof(new Uint8Array(client.computeM1())),
      (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication,
    );
  });

  test('B equals fast-srp-hap server B for the same salt, code and private key', () => {
    const salt = randomBytes(16);
    const secret = randomBytes(32);
    const ours = new SrpServer({ crypto: portableCryptoKernels, password: '1234', salt, privateKey: new Uint8Array(secret), random });
    const reference = new ReferenceServer(SRP.params.hap, salt, identity, Buffer.from('1234'), secret);
    assert.deepEqual(Buffer.from(ours.publicKey), reference.computeB());
  });
});

function controlKey(shared: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha512', shared, Buffer.from('Control-Salt'), Buffer.from(info), 32));
}

function nonce(counter: number): Buffer {
  const n = Buffer.alloc(12);
  n.writeBigUInt64LE(BigInt(counter), 4);
  return n;
}

/** Splits framed bytes into [aad, ciphertext, tag] per frame. */
function frames(bytes: Uint8Array): [Buffer, Buffer, Buffer][] {
  const out: [Buffer, Buffer, Buffer][] = [];
  const buffer = Buffer.from(bytes);
  for (let offset = 0; offset < buffer.length; ) {
    const length = buffer.readUInt16LE(offset);
    out.push([buffer.subarray(offset, offset + 2), buffer.subarray(offset + 2, offset + 2 + length), buffer.subarray(offset + 2 + length, offset + 18 + length)]);
    offset += 18 + length;
  }
  return out;
}

describe('control channel against Node chacha20-poly1305', () => {
  test('OpenSSL opens every frame the receiver seals, with the read key and counters from 0', () => {
    const shared = random(64);
    const channel = createControlChannel(shared, portableCryptoKernels);
    const key = controlKey(shared, 'Control-Read-Encryption-Key');
    let counter = 0;
    for (const size of [1, 100, 1023, 1024, 1025, 5000, 17]) {
      const plaintext = randomBytes(size);
      const opened: Buffer[] = [];
      for (const [aad, ciphertext, tag] of frames(channel.seal(new Uint8Array(plaintext)))) {
        assert.ok(ciphertext.length >= 1 && ciphertext.length <= 1024);
        const decipher = createDecipheriv('chacha20-poly1305', key, nonce(counter++), { authTagLength: 16 });
        decipher.setAAD(aad, { plaintextLength: ciphertext.length });
        decipher.setAuthTag(tag);
        opened.push(decipher.update(ciphertext), decipher.final());
      }
      assert.deepEqual(Buffer.concat(opened), plaintext);
    }
  });

  test('the receiver opens frames OpenSSL seals with the write key', () => {
    const shared = random(32);
    const channel = createControlChannel(shared, portableCryptoKernels);
    const key = controlKey(shared, 'Control-Write-Encryption-Key');
    for (let counter = 0; counter < 40; counter++) {
      const plaintext = randomBytes(1 + ((counter * 211) % 1024));
      const aad = Buffer.alloc(2);
      aad.writeUInt16LE(plaintext.length);
      const cipher = createCipheriv('chacha20-poly1305', key, nonce(counter), { authTagLength: 16 });
      cipher.setAAD(aad, { plaintextLength: plaintext.length });
      const frame = Buffer.concat([aad, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      const opened = channel.open(new Uint8Array(frame));
      assert.equal(opened.length, 1);
      assert.deepEqual(Buffer.from(opened[0]), plaintext);
    }
  });

  test('the sender channel uses the keys the other way round', () => {
    const shared = random(64);
    const sender = createSenderChannel(shared, portableCryptoKernels);
    const [[aad, ciphertext, tag]] = frames(sender.seal(new Uint8Array([1, 2, 3])));
    const decipher = createDecipheriv('chacha20-poly1305', controlKey(shared, 'Control-Write-Encryption-Key'), nonce(0), { authTagLength: 16 });
    decipher.setAAD(aad, { plaintextLength: 3 });
    decipher.setAuthTag(tag);
    assert.deepEqual([...decipher.update(ciphertext), ...decipher.final()], [1, 2, 3]);
  });
});
