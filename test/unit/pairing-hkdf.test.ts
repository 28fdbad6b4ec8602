// Pairing's key schedule: HKDF-SHA-512 against Node-generated vectors, the wire label tables,
// and the sealing of TLV sub-messages under nonce labels.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex, utf8Encode } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import {
  PAIRING_HKDF,
  PAIRING_NONCE,
  chachaOpenWithNonceLabel,
  chachaSealWithNonceLabel,
  derivePairingKey,
  hkdfSha512,
  nonceFromLabel,
} from '../../src/pairing/hkdf';
import { chachaSeal } from '../../src/pairing/keys';
import { TLV_ERROR } from '../../src/pairing/tlv-types';
import vectors from '../vectors/hkdf-sha512.json' with { type: 'json' };
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

test('HKDF-SHA-512 matches the vectors computed with Node hkdfSync', () => {
  assert.ok(vectors.cases.length >= 10);
  for (const vector of vectors.cases) {
    assert.equal(toHex(hkdfSha512(fromHex(vector.ikm), vector.salt, vector.info, vector.length, portableCryptoKernels)), vector.okm, vector.name);
  }
});

test('every salt/info pair of the table is in the vectors (the wire strings are exact)', () => {
  const names = new Set(vectors.cases.map((vector) => `${vector.salt} / ${vector.info}`));
  for (const label of Object.values(PAIRING_HKDF)) assert.ok(names.has(`${label.salt} / ${label.info}`), `${label.salt} / ${label.info}`);
  // spec 5.5: the wire salt is MFi-Pair-Setup-Salt, not the vendor-auth name the spec writes
  assert.equal(PAIRING_HKDF.MfiPairSetup.salt, 'MFi-Pair-Setup-Salt');
  assert.equal(PAIRING_HKDF.ControlWrite.info, 'Control-Write-Encryption-Key');
  assert.equal(PAIRING_HKDF.ControlRead.info, 'Control-Read-Encryption-Key');
  const ikm = fromHex(vectors.cases[3].ikm);
  assert.equal(toHex(derivePairingKey(ikm, PAIRING_HKDF.PairSetupEncrypt, 32, portableCryptoKernels)), vectors.cases[3].okm);
});

test('HKDF labels must be ASCII', () => {
  assert.throws(() => hkdfSha512(new Uint8Array(32), 'Salt-\u00e9', 'info', 32, portableCryptoKernels), PairingError);
});

test('nonce labels are 4 zero bytes then 8 ASCII characters', () => {
  assert.deepEqual(Object.values(PAIRING_NONCE), ['PS-Msg04', 'PS-Msg05', 'PS-Msg06', 'PV-Msg02', 'PV-Msg03']);
  assert.equal(toHex(nonceFromLabel(PAIRING_NONCE.PairSetupM5)), '00000000' + toHex(utf8Encode('PS-Msg05')));
  assert.throws(() => nonceFromLabel('PS-Msg5'), PairingError);
});

test('sub-messages sealed under a label open under the same label only', () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const plaintext = utf8Encode('\x01\x05sender\x03\x20' + 'k'.repeat(32));
  const sealed = chachaSealWithNonceLabel(key, PAIRING_NONCE.PairSetupM5, plaintext);
  assert.equal(sealed.length, plaintext.length + 16);
  assert.deepEqual(sealed, chachaSeal(key, nonceFromLabel('PS-Msg05'), plaintext));
  assert.deepEqual(chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairSetupM5, sealed), plaintext);
  const isAuthentication = (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication;
  assert.throws(() => chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairSetupM6, sealed), isAuthentication);
  const tampered = sealed.slice();
  tampered[3] ^= 0x80;
  assert.throws(() => chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairSetupM5, tampered), isAuthentication);
  assert.throws(() => chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairSetupM5, sealed.subarray(0, 10)), isAuthentication);
});

test('sub-messages may carry AAD', () => {
  const key = new Uint8Array(32).fill(5);
  const aad = utf8Encode('header');
  const sealed = chachaSealWithNonceLabel(key, PAIRING_NONCE.PairVerifyM2, utf8Encode('x'), aad);
  assert.deepEqual(chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairVerifyM2, sealed, aad), utf8Encode('x'));
  assert.throws(() => chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairVerifyM2, sealed), PairingError);
});
