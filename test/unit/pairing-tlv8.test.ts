// TLV8 codec of pairing messages: exact bytes, fragments, separators, truncation, repeats.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import { PAIR_FLAG, PAIR_METHOD, TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import {
  decodeTlv8,
  decodeTlv8Groups,
  decodeTlv8List,
  decodeTlvUint,
  encodeTlv8,
  encodeTlvUint,
  requireTlv,
} from '../../src/pairing/tlv8';

const u8 = (...values: number[]) => new Uint8Array(values);
const filled = (length: number, start = 0) => Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);

test('the type table has the protocol values', () => {
  assert.deepEqual(
    [TLV.Method, TLV.Identifier, TLV.Salt, TLV.PublicKey, TLV.Proof, TLV.EncryptedData, TLV.State, TLV.Error],
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual([TLV.RetryDelay, TLV.Certificate, TLV.Signature, TLV.Permissions, TLV.FragmentData, TLV.FragmentLast], [8, 9, 10, 11, 12, 13]);
  assert.equal(TLV.Flags, 19);
  assert.equal(TLV.Separator, 255);
  assert.deepEqual(Object.values(TLV_ERROR), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(Object.values(PAIR_METHOD), [0, 1, 2, 3, 4, 5]);
  assert.equal(PAIR_FLAG.Transient, 0x10);
});

test('encodes items in order as type, length, value', () => {
  const bytes = encodeTlv8([
    [TLV.State, u8(1)],
    [TLV.Method, u8(0)],
  ]);
  assert.equal(toHex(bytes), '060101' + '000100');
  assert.deepEqual(decodeTlv8(bytes), new Map([[6, u8(1)], [0, u8(0)]]));
});

test('a zero-length value is one item of length 0 and decodes to an empty value', () => {
  const bytes = encodeTlv8([[TLV.Identifier, u8()], [TLV.State, u8(2)]]);
  assert.equal(toHex(bytes), '0100' + '060102');
  assert.deepEqual(decodeTlv8(bytes).get(TLV.Identifier), u8());
});

test('a value over 255 bytes is split into 255-byte fragments and joined again', () => {
  const value = filled(600);
  const bytes = encodeTlv8([[TLV.PublicKey, value], [TLV.State, u8(2)]]);
  assert.equal(bytes.length, 600 + 3 * 2 + 3);
  assert.deepEqual([bytes[0], bytes[1]], [3, 255]);
  assert.deepEqual([bytes[257], bytes[258]], [3, 255]);
  assert.deepEqual([bytes[514], bytes[515]], [3, 90]);
  const decoded = decodeTlv8(bytes);
  assert.deepEqual(decoded.get(TLV.PublicKey), value);
  assert.deepEqual(decoded.get(TLV.State), u8(2));
});

test('a value of exactly 255 bytes is one item; 256 bytes is two', () => {
  assert.equal(encodeTlv8([[5, filled(255)]]).length, 257);
  const two = encodeTlv8([[5, filled(256)]]);
  assert.equal(two.length, 260);
  assert.deepEqual([two[257], two[258]], [5, 1]);
  assert.deepEqual(decodeTlv8(two).get(5), filled(256));
});

test('the 384-byte SRP public key of pair-setup M2 round-trips', () => {
  const salt = filled(16, 9);
  const publicKey = filled(384, 3);
  const bytes = encodeTlv8([[TLV.State, u8(2)], [TLV.Salt, salt], [TLV.PublicKey, publicKey]]);
  const decoded = decodeTlv8(bytes);
  assert.deepEqual(decoded.get(TLV.Salt), salt);
  assert.deepEqual(decoded.get(TLV.PublicKey), publicKey);
});

test('the writer puts a separator between consecutive items of the same type', () => {
  const bytes = encodeTlv8([[TLV.Identifier, u8(0x61)], [TLV.Identifier, u8(0x62)]]);
  assert.equal(toHex(bytes), '010161' + 'ff00' + '010162');
  assert.deepEqual(decodeTlv8List(bytes), [[1, u8(0x61)], [1, u8(0x62)]]);
  // a 255-byte value then a separate value of the same type: the separator keeps them apart
  const long = encodeTlv8([[TLV.Identifier, filled(255)], [TLV.Identifier, u8(7)]]);
  assert.deepEqual(decodeTlv8List(long), [[1, filled(255)], [1, u8(7)]]);
});

test('an explicit separator is written once, not doubled', () => {
  const bytes = encodeTlv8([[TLV.Identifier, u8(1)], [TLV.Separator, u8()], [TLV.Identifier, u8(2)]]);
  assert.equal(toHex(bytes), '010101ff00010102');
});

test('decodeTlv8 keeps the first value of a type repeated after a separator', () => {
  const bytes = fromHex('010161' + '0b0101' + 'ff00' + '010162' + '0b0100');
  const decoded = decodeTlv8(bytes);
  assert.deepEqual(decoded.get(TLV.Identifier), u8(0x61));
  assert.deepEqual(decoded.get(TLV.Permissions), u8(1));
});

test('decodeTlv8 refuses a type repeated in one group without a separator, naming the offset', () => {
  const bytes = fromHex('060101' + '0101aa' + '060103');
  assert.throws(() => decodeTlv8(bytes), (error: unknown) => error instanceof PairingError && /type 6 at offset 6/.test(error.message));
});

test('adjacent items of the same type are fragments of one value whatever their length', () => {
  assert.deepEqual(decodeTlv8(fromHex('0502aabb' + '0501cc')).get(5), u8(0xaa, 0xbb, 0xcc));
});

test('decodeTlv8Groups splits a List Pairings reply at the separators', () => {
  const bytes = encodeTlv8([
    [TLV.State, u8(2)],
    [TLV.Identifier, u8(0x41)],
    [TLV.PublicKey, filled(32)],
    [TLV.Permissions, u8(1)],
    [TLV.Separator, u8()],
    [TLV.Identifier, u8(0x42)],
    [TLV.PublicKey, filled(32, 5)],
    [TLV.Permissions, u8(0)],
  ]);
  const groups = decodeTlv8Groups(bytes);
  assert.equal(groups.length, 2);
  assert.deepEqual(groups[0].get(TLV.Identifier), u8(0x41));
  assert.deepEqual(groups[1].get(TLV.PublicKey), filled(32, 5));
  assert.deepEqual(groups[1].get(TLV.Permissions), u8(0));
});

test('truncated input is a PairingError naming the offset', () => {
  assert.throws(() => decodeTlv8(fromHex('06')), /truncated item header at offset 0/);
  assert.throws(() => decodeTlv8(fromHex('060101' + '03')), /truncated item header at offset 3/);
  assert.throws(() => decodeTlv8(fromHex('060101' + '0305aabb')), /type 3 at offset 3 declares 5 bytes but 2 remain/);
  // a truncated continuation fragment
  const cut = encodeTlv8([[TLV.PublicKey, filled(300)]]).subarray(0, 270);
  assert.throws(() => decodeTlv8(cut), (error: unknown) => error instanceof PairingError && /offset 257/.test(error.message));
  assert.throws(() => decodeTlv8List(fromHex('01')), PairingError);
  assert.throws(() => decodeTlv8Groups(fromHex('0102aa')), PairingError);
});

test('empty input decodes to nothing', () => {
  assert.equal(decodeTlv8(u8()).size, 0);
  assert.deepEqual(decodeTlv8List(u8()), []);
  assert.deepEqual(decodeTlv8Groups(u8()), []);
  assert.deepEqual(encodeTlv8([]), u8());
});

test('round trips of many shapes decode to the items written', () => {
  const types = [TLV.State, TLV.Identifier, TLV.EncryptedData, TLV.Certificate];
  for (let seed = 0; seed < 30; seed++) {
    const items: [number, Uint8Array][] = [];
    for (let i = 0; i < 1 + (seed % 5); i++) {
      const type = types[(seed * 7 + i * 3) % types.length];
      items.push([type, filled((seed * 131 + i * 257) % 800, seed + i)]);
    }
    assert.deepEqual(decodeTlv8List(encodeTlv8(items)), items);
  }
});

test('the writer accepts any iterable and rejects a type outside 0 to 255', () => {
  const fromMap = encodeTlv8(new Map([[6, u8(3)], [4, u8(1, 2)]]));
  assert.equal(toHex(fromMap), '060103' + '04020102');
  assert.throws(() => encodeTlv8([[256, u8()]]), PairingError);
  assert.throws(() => encodeTlv8([[-1, u8()]]), PairingError);
});

test('integer values are little-endian in the fewest bytes', () => {
  assert.deepEqual(encodeTlvUint(0), u8(0));
  assert.deepEqual(encodeTlvUint(PAIR_FLAG.Transient), u8(0x10));
  assert.deepEqual(encodeTlvUint(0x1234), u8(0x34, 0x12));
  assert.deepEqual(encodeTlvUint(0x01000000), u8(0, 0, 0, 1));
  assert.equal(decodeTlvUint(u8(0x10, 0, 0, 0)), 0x10);
  assert.equal(decodeTlvUint(u8(0xff, 0xff, 0xff, 0xff)), 0xffffffff);
  assert.throws(() => decodeTlvUint(u8()), PairingError);
  assert.throws(() => decodeTlvUint(u8(1, 2, 3, 4, 5)), PairingError);
  assert.throws(() => encodeTlvUint(2 ** 32), PairingError);
});

test('requireTlv returns the value or throws with the given error code', () => {
  const decoded = decodeTlv8(fromHex('060103'));
  assert.deepEqual(requireTlv(decoded, TLV.State), u8(3));
  assert.throws(
    () => requireTlv(decoded, TLV.Proof, TLV_ERROR.Authentication),
    (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication && /type 4 is missing/.test(error.message),
  );
});
