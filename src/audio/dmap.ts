// DMAP tagged data (Content-Type application/x-dmap-tagged): the track metadata senders send
// in a SET_PARAMETER while realtime audio plays, a `mlit` (listing item) container holding
// `minm` (title), `asar` (artist), `asal` (album), `asgn` (genre)... Each item is a 4-byte ASCII
// tag, a 4-byte big-endian length and that many bytes: a string (UTF-8), an unsigned integer of
// 1, 2, 4 or 8 bytes, or a container of more items. What the tag holds is not on the wire: the
// table below says it for the tags read; any other tag is passed over by its length.
//
// pyatv (0.14.5, support/rtsp.py set_metadata with dmap/tags.py string_tag) writes a string's
// length as Python's len() of the text: code points, not bytes. A title with `é` says one byte
// fewer than it has, and the next tag would be read from inside the text. So a string whose
// declared length does not end on an item boundary is read again as that many code points of
// UTF-8, and taken when that does end on one (the container's own length is right: it counts
// bytes).

import { readU32BE, readUintBE, utf8Decode } from '../bytes';

export const DMAP_CONTENT_TYPE = 'application/x-dmap-tagged';

/** The data is not DMAP as read here; the message names the offset and what is wrong there. */
export class DmapError extends Error {
  override name = 'DmapError';
}

/** Largest body read (a listing item of a few strings is a few hundred bytes). */
export const MAX_DMAP_BYTES = 64 * 1024;
/** Most items read, containers included. */
export const MAX_DMAP_ITEMS = 512;
/** Deepest nesting of containers (`mlit` alone is depth 1). */
export const MAX_DMAP_DEPTH = 4;

const ITEM_HEADER_BYTES = 8;

type DmapKind = 'container' | 'string' | 'uint';

/** The metadata read from a listing item; each field only when the sender sent its tag. */
export interface DmapMetadata {
  title?: string;
  artist?: string;
  album?: string;
  albumArtist?: string;
  genre?: string;
  composer?: string;
  trackNumber?: number;
  trackCount?: number;
  discNumber?: number;
  discCount?: number;
  /** The track's length, ms (`astm`). */
  durationMs?: number;
}

/** The tags read, one row each: what the item holds and the field it fills. */
export const DMAP_TAGS: Readonly<Record<string, { readonly kind: DmapKind; readonly field?: keyof DmapMetadata }>> = {
  /** dmap.listingitem: the container of one track's tags. */
  mlit: { kind: 'container' },
  /** dmap.listing */
  mlcl: { kind: 'container' },
  minm: { kind: 'string', field: 'title' },
  asar: { kind: 'string', field: 'artist' },
  asal: { kind: 'string', field: 'album' },
  asaa: { kind: 'string', field: 'albumArtist' },
  asgn: { kind: 'string', field: 'genre' },
  ascp: { kind: 'string', field: 'composer' },
  astn: { kind: 'uint', field: 'trackNumber' },
  astc: { kind: 'uint', field: 'trackCount' },
  asdn: { kind: 'uint', field: 'discNumber' },
  asdc: { kind: 'uint', field: 'discCount' },
  astm: { kind: 'uint', field: 'durationMs' },
};

/**
 * The metadata in a DMAP body: the tags of DMAP_TAGS wherever they sit (at the top or in a
 * container); a tag seen twice keeps the last. Throws DmapError for data that is not DMAP
 * (an item longer than what holds it, a tag that is not four ASCII letters), or beyond the
 * bounds above.
 */
export function readDmapMetadata(body: Uint8Array): DmapMetadata {
  if (body.length > MAX_DMAP_BYTES) throw new DmapError(`DMAP body of ${body.length} bytes is longer than ${MAX_DMAP_BYTES}`);
  if (body.length === 0) throw new DmapError('DMAP body is empty');
  const metadata: DmapMetadata = {};
  const counter = { items: 0 };
  readItems(body, 0, body.length, 1, metadata, counter);
  return metadata;
}

function readItems(body: Uint8Array, start: number, end: number, depth: number, metadata: DmapMetadata, counter: { items: number }): void {
  let offset = start;
  while (offset < end) {
    if (++counter.items > MAX_DMAP_ITEMS) throw new DmapError(`offset ${offset}: more than ${MAX_DMAP_ITEMS} DMAP items`);
    if (end - offset < ITEM_HEADER_BYTES) throw new DmapError(`offset ${offset}: ${end - offset} bytes left, too few for an item header (8)`);
    const tag = readTag(body, offset);
    const length = readU32BE(body, offset + 4);
    const valueStart = offset + ITEM_HEADER_BYTES;
    const row = Object.prototype.hasOwnProperty.call(DMAP_TAGS, tag) ? DMAP_TAGS[tag] : undefined;
    let valueEnd = valueStart + length;
    if (row?.kind === 'string' && !endsOnItem(body, valueEnd, end)) valueEnd = codePointEnd(body, valueStart, length, end) ?? valueEnd;
    if (valueEnd > end) throw new DmapError(`offset ${offset}: ${tag} says ${length} bytes, ${end - valueStart} remain`);
    if (row?.kind === 'container') {
      if (depth >= MAX_DMAP_DEPTH) throw new DmapError(`offset ${offset}: ${tag} nests deeper than ${MAX_DMAP_DEPTH} containers`);
      readItems(body, valueStart, valueEnd, depth + 1, metadata, counter);
    } else if (row?.field) {
      const value = body.subarray(valueStart, valueEnd);
      if (row.kind === 'string') (metadata[row.field] as string) = utf8Decode(value, false);
      else (metadata[row.field] as number) = readUnsigned(value, tag, offset);
    }
    offset = valueEnd;
  }
}

/** A tag: four bytes of ASCII letters (DMAP's are lower case; upper case passes too). */
function readTag(body: Uint8Array, offset: number): string {
  let tag = '';
  for (let i = 0; i < 4; i++) {
    const byte = body[offset + i];
    const letter = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a);
    if (!letter) throw new DmapError(`offset ${offset}: tag bytes ${hex4(body, offset)} are not four ASCII letters`);
    tag += String.fromCharCode(byte);
  }
  return tag;
}

function hex4(body: Uint8Array, offset: number): string {
  let text = '';
  for (let i = 0; i < 4; i++) text += (body[offset + i] ?? 0).toString(16).padStart(2, '0');
  return text;
}

/** Whether an item ending at `at` is followed by the end of its container or by a well-formed item header. */
function endsOnItem(body: Uint8Array, at: number, end: number): boolean {
  if (at === end) return true;
  if (at > end || end - at < ITEM_HEADER_BYTES) return false;
  for (let i = 0; i < 4; i++) {
    const byte = body[at + i];
    if (!((byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a))) return false;
  }
  return at + ITEM_HEADER_BYTES + readU32BE(body, at + 4) <= end;
}

/**
 * Where `count` code points of UTF-8 from `start` end, when that ends on an item (pyatv's
 * string lengths, above); undefined otherwise.
 */
function codePointEnd(body: Uint8Array, start: number, count: number, end: number): number | undefined {
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at >= end) return undefined;
    const lead = body[at];
    at += lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  }
  return endsOnItem(body, at, end) ? at : undefined;
}

function readUnsigned(value: Uint8Array, tag: string, offset: number): number {
  if (value.length === 0 || value.length > 8 || (value.length & (value.length - 1)) !== 0) {
    throw new DmapError(`offset ${offset}: ${tag} is a number of ${value.length} bytes (1, 2, 4 or 8)`);
  }
  if (value.length < 8) return readUintBE(value, 0, value.length);
  // Eight bytes: exact up to 2^53, which a track's length or number never reaches.
  return readU32BE(value, 0) * 0x100000000 + readU32BE(value, 4);
}
