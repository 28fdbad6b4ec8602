// The minimal DER reader and PEM unwrapping (src/pairing/der.ts; X.690 8 and 10, RFC 7468).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toBase64, toHex } from '../../src/bytes';
import { DER_TAG, derUnsignedInteger, pemLabel, pemToDer, readCertificateDer, readDerChildren, readDerElement, readDerExactly } from '../../src/pairing/der';
import { PairingError } from '../../src/pairing/errors';
import { assertThrowsKind } from '../support/throws';

// SEQUENCE { INTEGER 5, NULL, INTEGER 0x0080 }
const SEQUENCE = fromHex('300902010505000202' + '0080');

test('reads a short-form element as a view of its contents', () => {
  const element = readDerElement(SEQUENCE);
  assert.equal(element.tag, DER_TAG.Sequence);
  assert.equal(element.offset, 0);
  assert.equal(element.end, SEQUENCE.length);
  assert.equal(toHex(element.value), '02010505000202' + '0080');
  assert.equal(element.value.buffer, SEQUENCE.buffer, 'a view, not a copy');
});

test('children fill a SEQUENCE in order', () => {
  const children = readDerChildren(readDerElement(SEQUENCE).value);
  assert.deepEqual(children.map((child) => [child.tag, toHex(child.value)]), [
    [DER_TAG.Integer, '05'],
    [DER_TAG.Null, ''],
    [DER_TAG.Integer, '0080'],
  ]);
  assert.equal(derUnsignedInteger(children[0], 'n'), 5n);
  assert.equal(derUnsignedInteger(children[2], 'e'), 128n);
});

test('long-form lengths are read, and only in their shortest form', () => {
  const value = new Uint8Array(200).fill(7);
  const long = new Uint8Array([0x04, 0x81, 200, ...value]);
  assert.equal(readDerElement(long).value.length, 200);
  const twoBytes = new Uint8Array([0x04, 0x82, 0x01, 0x00, ...new Uint8Array(256)]);
  assert.equal(readDerElement(twoBytes).end, 260);
  assertThrowsKind(() => readDerElement(fromHex('04817f' + '00'.repeat(127))), PairingError, /not in its shortest form/);
  assertThrowsKind(() => readDerElement(new Uint8Array([0x04, 0x82, 0x00, 0x80, ...new Uint8Array(128)])), PairingError, /shortest form/);
});

test('headers DER does not allow, and truncation, are refused with the offset', () => {
  assertThrowsKind(() => readDerElement(fromHex('30')), PairingError, /truncated header at offset 0/);
  assertThrowsKind(() => readDerElement(fromHex('3080')), PairingError, /indefinite length at offset 0/);
  assertThrowsKind(() => readDerElement(fromHex('1f0100')), PairingError, /multi-byte tag/);
  assertThrowsKind(() => readDerElement(fromHex('3085' + '0000000001' + '00')), PairingError, /5-byte length/);
  assertThrowsKind(() => readDerElement(fromHex('3082' + '01')), PairingError, /truncated length/);
  assertThrowsKind(() => readDerElement(fromHex('0005' + '0102'), 0), PairingError, /declares 5 bytes but 2 remain/);
  assertThrowsKind(() => readDerChildren(fromHex('020105' + '02')), PairingError, /truncated header at offset 3/);
});

test('readDerExactly wants one element of the tag and nothing after it', () => {
  assert.equal(readDerExactly(SEQUENCE, DER_TAG.Sequence, 'key').end, SEQUENCE.length);
  assertThrowsKind(() => readDerExactly(SEQUENCE, DER_TAG.Set, 'key'), PairingError, /key: DER tag 0x30, expected 0x31/);
  assertThrowsKind(() => readDerExactly(fromHex('300000'), DER_TAG.Sequence, 'key'), PairingError, /key: 1 bytes after the DER element/);
});

test('an INTEGER for a key field must be non-empty and not negative', () => {
  const [integer] = readDerChildren(fromHex('020105'));
  assert.equal(derUnsignedInteger(integer, 'n'), 5n);
  assertThrowsKind(() => derUnsignedInteger(readDerElement(fromHex('0200')), 'n'), PairingError, /n: empty INTEGER/);
  assertThrowsKind(() => derUnsignedInteger(readDerElement(fromHex('020180')), 'n'), PairingError, /n: negative INTEGER/);
  assertThrowsKind(() => derUnsignedInteger(readDerElement(fromHex('0500')), 'n'), PairingError, /expected an INTEGER, found tag 0x5/);
});

function pem(label: string, der: Uint8Array, headers = ''): string {
  return `junk before\n-----BEGIN ${label}-----\n${headers}${toBase64(der)}\n-----END ${label}-----\n`;
}

test('pemToDer takes the labelled block, or the first when no label is given', () => {
  const both = pem('PRIVATE KEY', fromHex('0500')) + pem('CERTIFICATE', SEQUENCE);
  assert.deepEqual(pemToDer(both, 'CERTIFICATE'), SEQUENCE);
  assert.deepEqual(pemToDer(both), fromHex('0500'));
  assert.equal(pemLabel(both), 'PRIVATE KEY');
  assert.equal(pemLabel('no block here'), undefined);
});

test('pemToDer refuses a missing block, a missing END, encrypted PEM and bad base64', () => {
  assertThrowsKind(() => pemToDer('nothing'), PairingError, /no BEGIN line/);
  assertThrowsKind(() => pemToDer(pem('CERTIFICATE', SEQUENCE), 'RSA PRIVATE KEY'), PairingError, /no "BEGIN RSA PRIVATE KEY" block/);
  assertThrowsKind(() => pemToDer('-----BEGIN CERTIFICATE-----\nMAA=\n'), PairingError, /"CERTIFICATE" block has no END line/);
  assertThrowsKind(() => pemToDer(pem('RSA PRIVATE KEY', SEQUENCE, 'Proc-Type: 4,ENCRYPTED\n\n')), PairingError, /encrypted PEM is not supported/);
  assertThrowsKind(() => pemToDer('-----BEGIN X-----\n@@@@\n-----END X-----'), PairingError, /"X" block is not base64/);
});

test('a certificate is one DER SEQUENCE, from DER or PEM, returned unchanged', () => {
  assert.equal(readCertificateDer(SEQUENCE), SEQUENCE);
  assert.deepEqual(readCertificateDer(pem('CERTIFICATE', SEQUENCE)), SEQUENCE);
  assertThrowsKind(() => readCertificateDer(fromHex('0500')), PairingError, /certificate: DER tag 0x5, expected 0x30/);
  assertThrowsKind(() => readCertificateDer(new Uint8Array([...SEQUENCE, 0])), PairingError, /certificate: 1 bytes after/);
});
