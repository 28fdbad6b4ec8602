// Writes hkdf-sha512.json: HKDF-SHA-512 (RFC 5869) outputs from Node's hkdfSync, for inputs of
// RFC 5869 A.1 and A.3 shapes and for every salt/info pair pairing uses. Run once; the JSON is committed:
//   node --import tsx test/vectors/make-hkdf-sha512.ts

import { hkdfSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ikm64 = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff));

const inputs: { name: string; ikm: Buffer; salt: string; info: string; length: number }[] = [
  // RFC 5869 A.1 inputs (salt 0x00..0x0c, info 0xf0..0xf9 is not ASCII, so an ASCII info instead)
  { name: 'A.1 inputs, 42 bytes', ikm: Buffer.alloc(22, 0x0b), salt: String.fromCharCode(...Array.from({ length: 13 }, (_, i) => i)), info: 'rfc5869', length: 42 },
  // RFC 5869 A.3 shape: empty salt and info
  { name: 'A.3 shape, empty salt and info', ikm: Buffer.alloc(22, 0x0b), salt: '', info: '', length: 42 },
  { name: 'longer than one SHA-512 block', ikm: ikm64, salt: 'salt', info: 'info', length: 100 },
];
const labels: [string, string][] = [
  ['Pair-Setup-Encrypt-Salt', 'Pair-Setup-Encrypt-Info'],
  ['Pair-Setup-Controller-Sign-Salt', 'Pair-Setup-Controller-Sign-Info'],
  ['Pair-Setup-Accessory-Sign-Salt', 'Pair-Setup-Accessory-Sign-Info'],
  ['Pair-Verify-Encrypt-Salt', 'Pair-Verify-Encrypt-Info'],
  ['Control-Salt', 'Control-Write-Encryption-Key'],
  ['Control-Salt', 'Control-Read-Encryption-Key'],
  ['Events-Salt', 'Events-Read-Encryption-Key'],
  ['Events-Salt', 'Events-Write-Encryption-Key'],
  ['MFi-Pair-Setup-Salt', 'MFi-Pair-Setup-Info'],
];
for (const [salt, info] of labels) inputs.push({ name: `${salt} / ${info}`, ikm: ikm64, salt, info, length: 32 });

const vectors = {
  description: 'HKDF-SHA-512 (RFC 5869) computed with Node hkdfSync by make-hkdf-sha512.ts; salt and info are ASCII strings as on the wire.',
  cases: inputs.map(({ name, ikm, salt, info, length }) => ({
    name,
    ikm: hex(ikm),
    salt,
    info,
    length,
    okm: hex(new Uint8Array(hkdfSync('sha512', ikm, Buffer.from(salt, 'latin1'), Buffer.from(info, 'latin1'), length))),
  })),
};

writeFileSync(new URL('./hkdf-sha512.json', import.meta.url), JSON.stringify(vectors, null, 2) + '\n');
