// A minimal DER reader (X.690 8 and 10) and PEM unwrapping (RFC 7468): enough to read RSA
// private keys (PKCS#1, PKCS#8) and to check a device certificate (X.509 or PKCS#7) is one
// well-formed DER element before it is sent as is.

import { fromBase64 } from '../bytes';
import { PairingError } from './errors';
import { bytesToBigInt } from './_util';
import { describeError } from '../errors';

/** Universal tags this reader knows by name. */
export const DER_TAG = {
  Integer: 0x02,
  BitString: 0x03,
  OctetString: 0x04,
  Null: 0x05,
  ObjectIdentifier: 0x06,
  Sequence: 0x30,
  Set: 0x31,
} as const;

/** One DER element: its tag byte and a view of its contents. */
interface DerElement {
  tag: number;
  /** Offset of the tag byte in the array read. */
  offset: number;
  /** The contents octets (a view, no copy). */
  value: Uint8Array;
  /** Offset just after the element. */
  end: number;
}

/** Reads the element at `offset`; throws a PairingError for a truncated or non-DER header. */
export function readDerElement(bytes: Uint8Array, offset = 0): DerElement {
  if (offset + 2 > bytes.length) throw new PairingError(`DER: truncated header at offset ${offset}`);
  const tag = bytes[offset];
  if ((tag & 0x1f) === 0x1f) throw new PairingError(`DER: multi-byte tag at offset ${offset} is not supported`);
  let length = bytes[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0) throw new PairingError(`DER: indefinite length at offset ${offset} (BER, not DER)`);
    if (count > 4) throw new PairingError(`DER: ${count}-byte length at offset ${offset} is too large`);
    if (start + count > bytes.length) throw new PairingError(`DER: truncated length at offset ${offset}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i];
    if (length < 0x80 || (count > 1 && bytes[start] === 0)) throw new PairingError(`DER: length at offset ${offset} is not in its shortest form`);
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw new PairingError(`DER: element at offset ${offset} declares ${length} bytes but ${bytes.length - start} remain`);
  return { tag, offset, value: bytes.subarray(start, end), end };
}

/** The elements that exactly fill `contents` (the value of a SEQUENCE or SET), in order. */
export function readDerChildren(contents: Uint8Array): DerElement[] {
  const children: DerElement[] = [];
  let offset = 0;
  while (offset < contents.length) {
    const child = readDerElement(contents, offset);
    children.push(child);
    offset = child.end;
  }
  return children;
}

/** Reads `bytes` as exactly one element of tag `tag` (no trailing bytes). */
export function readDerExactly(bytes: Uint8Array, tag: number, what: string): DerElement {
  const element = readDerElement(bytes, 0);
  if (element.tag !== tag) throw new PairingError(`${what}: DER tag 0x${element.tag.toString(16)}, expected 0x${tag.toString(16)}`);
  if (element.end !== bytes.length) throw new PairingError(`${what}: ${bytes.length - element.end} bytes after the DER element`);
  return element;
}

/** A non-negative INTEGER as a bigint (negative values are refused: key fields are positive). */
export function derUnsignedInteger(element: DerElement, what: string): bigint {
  if (element.tag !== DER_TAG.Integer) throw new PairingError(`${what}: expected an INTEGER, found tag 0x${element.tag.toString(16)}`);
  if (element.value.length === 0) throw new PairingError(`${what}: empty INTEGER`);
  if (element.value[0] & 0x80) throw new PairingError(`${what}: negative INTEGER`);
  return bytesToBigInt(element.value);
}

/**
 * The DER bytes of a PEM block (RFC 7468): the block labelled `label` (such as 'CERTIFICATE'),
 * or the first block when no label is given. Encrypted PEM is refused.
 */
export function pemToDer(pem: string, label?: string): Uint8Array {
  let found: string;
  let bodyStart: number;
  if (label === undefined) {
    const begin = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem);
    if (!begin) throw new PairingError('PEM: no BEGIN line');
    found = begin[1];
    bodyStart = begin.index + begin[0].length;
  } else {
    const marker = `-----BEGIN ${label}-----`;
    const at = pem.indexOf(marker);
    if (at < 0) throw new PairingError(`PEM: no "BEGIN ${label}" block`);
    found = label;
    bodyStart = at + marker.length;
  }
  const endMarker = `-----END ${found}-----`;
  const bodyEnd = pem.indexOf(endMarker, bodyStart);
  if (bodyEnd < 0) throw new PairingError(`PEM: "${found}" block has no END line`);
  const body = pem.slice(bodyStart, bodyEnd);
  if (body.indexOf(':') >= 0) throw new PairingError(`PEM: "${found}" block has headers (encrypted PEM is not supported)`);
  try {
    return fromBase64(body);
  } catch (error) {
    throw new PairingError(`PEM: "${found}" block is not base64 (${describeError(error)})`);
  }
}

/** The label of the first PEM block in `pem`, or undefined when there is none. */
export function pemLabel(pem: string): string | undefined {
  return /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1];
}

/**
 * A certificate as DER bytes, from DER or from PEM ('CERTIFICATE', 'PKCS7' or any first
 * block): checked to be exactly one DER SEQUENCE, and returned unchanged otherwise.
 */
export function readCertificateDer(pemOrDer: string | Uint8Array): Uint8Array {
  const der = typeof pemOrDer === 'string' ? pemToDer(pemOrDer) : pemOrDer;
  readDerExactly(der, DER_TAG.Sequence, 'certificate');
  return der;
}
