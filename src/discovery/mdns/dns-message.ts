// DNS messages as multicast DNS sends them (RFC 1035 4, RFC 6762 18): read whole (header,
// questions, the three record sections, names decompressed) and written with name compression.
//
// Reading is bounded and total: every count, length and pointer is checked against the message
// and the limits (mdns-limits.ts), and a message that cannot be read is a value naming why and
// where, never an exception. Pointers must lead to an earlier offset, so no name can loop.

import { utf8Decode, utf8Encode, writeU16BE, writeU32BE } from '../../bytes';
import { DNS_TYPES } from '../mdns-unicast';
import { MDNS_LIMITS } from './mdns-limits';

/** Record types beyond the answered ones that the reader must understand (RFC 1035, 6891, 4034). */
export const DNS_OTHER_TYPES = { NS: 2, CNAME: 5, OPT: 41, NSEC: 47 } as const;

/** RFC 1035 4.1.1 header flags. */
export const DNS_FLAGS = {
  /** A response (else a query). */
  QR: 0x8000,
  OPCODE_MASK: 0x7800,
  /** Authoritative answer: RFC 6762 18.4 sets it in every response. */
  AA: 0x0400,
  /** Truncated: in a query, more known answers follow (RFC 6762 18.5). */
  TC: 0x0200,
  RCODE_MASK: 0x000f,
} as const;

/** RFC 1035 3.2.4: the Internet class; ANY (255) in questions. */
export const DNS_CLASS = { IN: 1, ANY: 255 } as const;

/** RFC 6762 5.4 (questions: unicast response) and 10.2 (records: cache flush): the class's top bit. */
const CLASS_TOP_BIT = 0x8000;

/** Where the name inside RDATA starts, for the types whose RDATA holds a compressible name. */
const RDATA_NAME_AT: Readonly<Record<number, number>> = {
  [DNS_OTHER_TYPES.NS]: 0,
  [DNS_OTHER_TYPES.CNAME]: 0,
  [DNS_TYPES.PTR]: 0,
  // RFC 2782: priority, weight, port, then the target.
  [DNS_TYPES.SRV]: 6,
};

/** RFC 1035 4.1.4: a compression pointer's top two bits; it holds a 14-bit offset. */
const POINTER = 0xc0;
const POINTER_OFFSET_MAX = 0x3fff;
const LABEL_MAX = 63;
const HEADER_BYTES = 12;
/** The least a question (root name, type, class) and a record (root, fixed fields) take. */
const QUESTION_BYTES_MIN = 5;
const RECORD_BYTES_MIN = 11;

export interface DnsQuestion {
  readonly name: readonly string[];
  readonly type: number;
  /** The class without the unicast-response bit. */
  readonly class: number;
  /** RFC 6762 5.4: the QU bit. */
  readonly unicastResponse: boolean;
}

export interface DnsRecord {
  readonly name: readonly string[];
  readonly type: number;
  /** The class without the cache-flush bit. */
  readonly class: number;
  /** RFC 6762 10.2: the record is unique; caches drop other data for its name and type. */
  readonly cacheFlush: boolean;
  /** Seconds; 0 says goodbye (RFC 6762 10.1). */
  readonly ttl: number;
  /** RDATA with any name in it uncompressed (RFC 6762 18.14: what records compare by). */
  readonly rdata: Uint8Array;
  /** Where the name in `rdata` starts (PTR 0, SRV 6), -1 for data without one. */
  readonly rdataNameAt: number;
  /** That name's labels, for the writer to compress. */
  readonly rdataName?: readonly string[];
}

export interface DnsMessage {
  readonly id: number;
  readonly flags: number;
  readonly questions: readonly DnsQuestion[];
  readonly answers: readonly DnsRecord[];
  readonly authorities: readonly DnsRecord[];
  readonly additionals: readonly DnsRecord[];
}

/** A read message, or why it could not be read (`name at offset 40 points forward`). */
export type DnsReadResult = { readonly ok: true; readonly message: DnsMessage } | { readonly ok: false; readonly reason: string };

/** Thrown inside the reader only, caught at its boundary and turned into a DnsReadResult. */
class Malformed {
  constructor(readonly reason: string) {}
}

/** Reads a whole DNS message (RFC 1035 4.1). Never throws for any input. */
export function readMessage(bytes: Uint8Array): DnsReadResult {
  try {
    return { ok: true, message: new Reader(bytes).message() };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, reason: error.reason };
    throw error;
  }
}

class Reader {
  private offset = HEADER_BYTES;
  private readonly view: DataView;
  /** One name's labels while it is read: a name is at most 255 bytes, so this is enough. */
  private readonly scratch = new Uint8Array(MDNS_LIMITS.nameBytesMax);

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  message(): DnsMessage {
    const { bytes, view } = this;
    if (bytes.length > MDNS_LIMITS.receiveBytesMax) throw new Malformed(`message of ${bytes.length} bytes is over ${MDNS_LIMITS.receiveBytesMax}`);
    if (bytes.length < HEADER_BYTES) throw new Malformed(`message of ${bytes.length} bytes is shorter than its 12-byte header`);
    const counts = [view.getUint16(4), view.getUint16(6), view.getUint16(8), view.getUint16(10)];
    const entries = counts[0] + counts[1] + counts[2] + counts[3];
    if (entries > MDNS_LIMITS.entriesPerMessageMax) throw new Malformed(`${entries} questions and records are over ${MDNS_LIMITS.entriesPerMessageMax}`);
    const least = counts[0] * QUESTION_BYTES_MIN + (entries - counts[0]) * RECORD_BYTES_MIN;
    if (HEADER_BYTES + least > bytes.length) throw new Malformed(`counts ${counts.join('/')} need at least ${HEADER_BYTES + least} bytes; the message has ${bytes.length}`);
    const questions: DnsQuestion[] = [];
    for (let i = 0; i < counts[0]; i++) questions.push(this.question());
    const sections: DnsRecord[][] = [[], [], []];
    for (let s = 0; s < 3; s++) for (let i = 0; i < counts[s + 1]; i++) sections[s].push(this.record());
    return { id: view.getUint16(0), flags: view.getUint16(2), questions, answers: sections[0], authorities: sections[1], additionals: sections[2] };
  }

  private question(): DnsQuestion {
    const name = this.name(this.offset);
    this.offset = name.end;
    this.need(4, 'question');
    const qclass = this.view.getUint16(this.offset + 2);
    const question = { name: name.labels, type: this.view.getUint16(this.offset), class: qclass & ~CLASS_TOP_BIT, unicastResponse: (qclass & CLASS_TOP_BIT) !== 0 };
    this.offset += 4;
    return question;
  }

  private record(): DnsRecord {
    const { view } = this;
    const owner = this.name(this.offset);
    this.offset = owner.end;
    this.need(10, 'record');
    const type = view.getUint16(this.offset);
    const rclass = view.getUint16(this.offset + 2);
    const ttl = view.getUint32(this.offset + 4);
    const rdlength = view.getUint16(this.offset + 8);
    this.offset += 10;
    this.need(rdlength, 'record data');
    const start = this.offset;
    const end = start + rdlength;
    this.offset = end;
    const base = { name: owner.labels, type, class: rclass & ~CLASS_TOP_BIT, cacheFlush: (rclass & CLASS_TOP_BIT) !== 0, ttl };
    const nameAt = RDATA_NAME_AT[type];
    if (nameAt === undefined) return { ...base, rdata: this.bytes.slice(start, end), rdataNameAt: -1 };
    if (rdlength < nameAt + 1) throw new Malformed(`type ${type} record data at offset ${start} is ${rdlength} bytes, too short for its name`);
    const target = this.name(start + nameAt);
    if (target.end !== end) throw new Malformed(`type ${type} record data at offset ${start}: its name ends at ${target.end}, not at ${end}`);
    const rdata = new Uint8Array(nameAt + target.wire.length);
    rdata.set(this.bytes.subarray(start, start + nameAt));
    rdata.set(target.wire, nameAt);
    return { ...base, rdata, rdataNameAt: nameAt, rdataName: target.labels };
  }

  /**
   * RFC 1035 4.1.2, 4.1.4: the name at `start` as labels and as uncompressed wire bytes, and
   * where it ends in place. A pointer must lead before the label run it ends, so names cannot loop.
   */
  private name(start: number): { labels: string[]; wire: Uint8Array; end: number } {
    const { bytes, scratch } = this;
    const labels: string[] = [];
    let at = start;
    let floor = start;
    let end = -1;
    let length = 0;
    for (;;) {
      if (at >= bytes.length) throw new Malformed(`name at offset ${start} runs past the ${bytes.length}-byte message`);
      const size = bytes[at];
      if ((size & POINTER) === POINTER) {
        if (at + 1 >= bytes.length) throw new Malformed(`name pointer at offset ${at} is cut short`);
        const target = ((size & ~POINTER) << 8) | bytes[at + 1];
        if (end < 0) end = at + 2;
        if (target >= floor) throw new Malformed(`name pointer at offset ${at} leads forward or to itself (${target})`);
        at = floor = target;
        continue;
      }
      if (size & POINTER) throw new Malformed(`label type 0x${size.toString(16)} at offset ${at} is not defined`);
      if (size === 0) break;
      if (at + 1 + size > bytes.length) throw new Malformed(`label at offset ${at} runs past the message`);
      if (length + 1 + size + 1 > scratch.length) throw new Malformed(`name at offset ${start} is over ${MDNS_LIMITS.nameBytesMax} bytes`);
      scratch.set(bytes.subarray(at, at + 1 + size), length);
      length += 1 + size;
      // Not fatal: a label that is not UTF-8 matches none of ours, and that is all that matters.
      labels.push(utf8Decode(bytes.subarray(at + 1, at + 1 + size), false));
      at += 1 + size;
    }
    const wire = new Uint8Array(length + 1);
    wire.set(scratch.subarray(0, length));
    return { labels, wire, end: end < 0 ? at + 1 : end };
  }

  private need(length: number, what: string): void {
    if (this.offset + length > this.bytes.length) throw new Malformed(`${what} at offset ${this.offset} runs past the ${this.bytes.length}-byte message`);
  }
}

/** RFC 1035 3.1: a name uncompressed, each label length-prefixed, then a zero byte. */
export function nameBytes(labels: readonly string[]): Uint8Array {
  const parts = labels.map((label) => utf8Encode(label));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + 1 + part.length, 1));
  let offset = 0;
  for (const part of parts) {
    if (part.length === 0 || part.length > LABEL_MAX) throw new RangeError(`dns: a label of ${part.length} bytes cannot be written (1 to ${LABEL_MAX})`);
    out[offset] = part.length;
    out.set(part, offset + 1);
    offset += 1 + part.length;
  }
  return out;
}

/** The sections of a message in the order they are written. */
export const SECTION = { answer: 0, authority: 1, additional: 2 } as const;
export type Section = keyof typeof SECTION;

/**
 * Writes one DNS message of at most `sizeMax` bytes, compressing names (RFC 1035 4.1.4, RFC 6762
 * 18.14): a name, or its tail from any label on, written before becomes a pointer to it (compared
 * as RFC 6762 16 says: ASCII letters case-insensitive). A question or record that does not fit
 * is taken back whole and reported, so the caller decides what goes in the next message.
 */
export class MessageWriter {
  private readonly bytes: Uint8Array;
  private offset = HEADER_BYTES;
  private readonly counts = [0, 0, 0, 0];
  /** Where each name tail written so far starts, by its folded labels. */
  private readonly targets = new Map<string, number>();

  constructor(sizeMax: number) {
    this.bytes = new Uint8Array(sizeMax);
  }

  /** Nothing written but the header. */
  get empty(): boolean {
    return this.offset === HEADER_BYTES;
  }

  /** A question (RFC 1035 4.1.2); false, nothing written, when it does not fit. */
  question(question: DnsQuestion): boolean {
    if (this.counts[1] + this.counts[2] + this.counts[3] > 0) throw new RangeError('dns: questions go before records');
    const mark = this.mark();
    if (!this.name(question.name) || !this.room(4)) return this.undo(mark);
    writeU16BE(this.bytes, this.offset, question.type);
    writeU16BE(this.bytes, this.offset + 2, question.class | (question.unicastResponse ? CLASS_TOP_BIT : 0));
    this.offset += 4;
    this.counts[0]++;
    return true;
  }

  /**
   * A record in `section` (sections in order), with `ttl` and `cacheFlush` as given (a legacy
   * reply lowers the one and clears the other, a goodbye sends TTL 0); false when it does not fit.
   */
  record(section: Section, record: DnsRecord, ttl = record.ttl, cacheFlush = record.cacheFlush): boolean {
    const index = SECTION[section] + 1;
    for (let later = index + 1; later < 4; later++) if (this.counts[later] > 0) throw new RangeError(`dns: ${section} record after a later section`);
    const mark = this.mark();
    if (!this.name(record.name) || !this.room(10)) return this.undo(mark);
    const { bytes } = this;
    writeU16BE(bytes, this.offset, record.type);
    writeU16BE(bytes, this.offset + 2, record.class | (cacheFlush ? CLASS_TOP_BIT : 0));
    writeU32BE(bytes, this.offset + 4, ttl);
    const lengthAt = this.offset + 8;
    this.offset += 10;
    const start = this.offset;
    const { rdata, rdataNameAt, rdataName } = record;
    const fixed = rdataNameAt < 0 || !rdataName ? rdata.length : rdataNameAt;
    if (!this.room(fixed)) return this.undo(mark);
    bytes.set(rdata.subarray(0, fixed), this.offset);
    this.offset += fixed;
    if (fixed < rdata.length && rdataName && !this.name(rdataName)) return this.undo(mark);
    writeU16BE(bytes, lengthAt, this.offset - start);
    this.counts[index]++;
    return true;
  }

  /** The message with its header (RFC 1035 4.1.1), as a view of the writer's buffer. */
  finish(id: number, flags: number): Uint8Array {
    const { bytes, counts } = this;
    writeU16BE(bytes, 0, id);
    writeU16BE(bytes, 2, flags);
    for (let i = 0; i < 4; i++) writeU16BE(bytes, 4 + 2 * i, counts[i]);
    return bytes.subarray(0, this.offset);
  }

  private name(labels: readonly string[]): boolean {
    for (let i = 0; i < labels.length; i++) {
      const key = tailKey(labels, i);
      const target = this.targets.get(key);
      if (target !== undefined) {
        if (!this.room(2)) return false;
        this.bytes[this.offset] = POINTER | (target >> 8);
        this.bytes[this.offset + 1] = target & 0xff;
        this.offset += 2;
        return true;
      }
      const label = utf8Encode(labels[i]);
      if (label.length === 0 || label.length > LABEL_MAX) throw new RangeError(`dns: a label of ${label.length} bytes cannot be written (1 to ${LABEL_MAX})`);
      if (!this.room(1 + label.length)) return false;
      if (this.offset <= POINTER_OFFSET_MAX) this.targets.set(key, this.offset);
      this.bytes[this.offset] = label.length;
      this.bytes.set(label, this.offset + 1);
      this.offset += 1 + label.length;
    }
    if (!this.room(1)) return false;
    this.bytes[this.offset++] = 0;
    return true;
  }

  private room(length: number): boolean {
    return this.offset + length <= this.bytes.length;
  }

  private mark(): number {
    return this.offset;
  }

  /** Takes back everything written from `offset` on, and the compression targets it offered. */
  private undo(offset: number): false {
    this.offset = offset;
    for (const [key, at] of this.targets) if (at >= offset) this.targets.delete(key);
    return false;
  }
}

/** The labels from `from` on, folded as RFC 6762 16 compares them, as one map key. */
function tailKey(labels: readonly string[], from: number): string {
  let key = '';
  for (let i = from; i < labels.length; i++) key += `${labels[i].length}:${asciiLower(labels[i])}.`;
  return key;
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 32));
}
