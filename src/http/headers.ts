// Header fields of one message: case-insensitive lookup that keeps each name's spelling and order.

/**
 * Canonical spellings of the header names this project writes or reads by name (RFC 9110,
 * RFC 2326 section 12). Field names are case-insensitive (RFC 9110 5.1), but some senders match
 * them byte for byte, so what we write is spelled as the RFCs spell it: `CSeq`, not `Cseq`.
 * The maker-named `X-Vendor-*` headers live in the dialect table (src/dialect.ts).
 */
export const HEADER = {
  accept: 'Accept',
  acceptLanguage: 'Accept-Language',
  /** A sender's remote-control token (DACP), beside DACP-ID. */
  activeRemote: 'Active-Remote',
  allow: 'Allow',
  /** An audio SETUP's answer: what the speaker's output is. */
  audioJackStatus: 'Audio-Jack-Status',
  authorization: 'Authorization',
  /** The sender's instance, beside DACP-ID (pyatv sends the same value). */
  clientInstance: 'Client-Instance',
  connection: 'Connection',
  contentLength: 'Content-Length',
  contentType: 'Content-Type',
  cseq: 'CSeq',
  /** The sender's remote-control id (DACP): a classic audio session is named by it. */
  dacpId: 'DACP-ID',
  date: 'Date',
  expect: 'Expect',
  host: 'Host',
  location: 'Location',
  public: 'Public',
  range: 'Range',
  retryAfter: 'Retry-After',
  rtpInfo: 'RTP-Info',
  server: 'Server',
  session: 'Session',
  trailer: 'Trailer',
  transferEncoding: 'Transfer-Encoding',
  transport: 'Transport',
  upgrade: 'Upgrade',
  userAgent: 'User-Agent',
  wwwAuthenticate: 'WWW-Authenticate',
} as const;

export type WellKnownHeader = (typeof HEADER)[keyof typeof HEADER];

const CANONICAL = new Map<string, string>();
for (const name of Object.values(HEADER)) CANONICAL.set(name.toLowerCase(), name);

/**
 * The lookup key (lower case) of each well-known name as spelled here and in lower case: most
 * names a message carries are these, and a lookup here allocates nothing where toLowerCase
 * makes a new string for every mixed-case name (less allocation per request).
 */
const KEYS = new Map<string, string>();
for (const name of Object.values(HEADER)) {
  KEYS.set(name, name.toLowerCase());
  KEYS.set(name.toLowerCase(), name.toLowerCase());
}

function keyOf(name: string): string {
  return KEYS.get(name) ?? name.toLowerCase();
}

/** Whether `name` (any case) is `key` (its lower case), compared in place for ASCII names. */
function sameName(key: string, name: string): boolean {
  if (key.length !== name.length) return false;
  for (let i = 0; i < key.length; i++) {
    const code = name.charCodeAt(i);
    // Not a token: leave case to toLowerCase, as the key was made.
    if (code > 0x7f) return key === name.toLowerCase();
    if (key.charCodeAt(i) !== (code >= 0x41 && code <= 0x5a ? code + 0x20 : code)) return false;
  }
  return true;
}

/** The canonical spelling of a well-known header name (any case in), else `name` unchanged. */
export function canonicalHeaderName(name: string): string {
  return CANONICAL.get(name.toLowerCase()) ?? name;
}

/** What a Headers can be built from: another Headers, name/value pairs, or a plain record. */
export type HeadersInit =
  | Headers
  | Iterable<readonly [string, string | number]>
  | Readonly<Record<string, string | number>>;

/**
 * An ordered list of header fields. Lookups ignore case; iteration yields the names as spelled
 * and in the order they arrived or were added. Values are strings (the parser decodes them as
 * Latin-1). No validation here: the parser only produces valid fields and the writer checks
 * what it writes.
 */
export class Headers implements Iterable<[string, string]> {
  /**
   * Each field as three entries: its name as spelled, its lookup key (lower case), its value.
   * One array, not one per column: a request head makes one Headers, and most have few fields.
   */
  private readonly fields: string[] = [];

  constructor(init?: HeadersInit) {
    if (init === undefined) return;
    if (init instanceof Headers) {
      for (const [name, value] of init) this.append(name, value);
    } else if (isIterable(init)) {
      for (const [name, value] of init) this.append(name, value);
    } else {
      for (const name of Object.keys(init)) this.append(name, init[name]);
    }
  }

  /** Number of fields (a repeated name counts each time). */
  get size(): number {
    return this.fields.length / STRIDE;
  }

  /** The name of field `index` (0 to size - 1) as spelled: for iterating without an iterator. */
  nameAt(index: number): string {
    return this.fields[index * STRIDE];
  }

  /** The value of field `index` (0 to size - 1). */
  valueAt(index: number): string {
    return this.fields[index * STRIDE + VALUE];
  }

  /** The first value of `name`, or undefined. List fields: see getAll. */
  get(name: string): string | undefined {
    const index = this.indexOf(name, 0);
    return index < 0 ? undefined : this.fields[index * STRIDE + VALUE];
  }

  /** Every value of `name`, in order (a field may be repeated, RFC 9110 5.3). */
  getAll(name: string): string[] {
    const out: string[] = [];
    for (let i = this.indexOf(name, 0); i >= 0; i = this.indexOf(name, i + 1)) out.push(this.fields[i * STRIDE + VALUE]);
    return out;
  }

  has(name: string): boolean {
    return this.indexOf(name, 0) >= 0;
  }

  /**
   * Sets `name` to one value: replaces the first field of that name in place (taking the new
   * spelling) and removes the others; appends when absent.
   */
  set(name: string, value: string | number): this {
    const key = keyOf(name);
    const first = this.indexOfKey(key, 0);
    if (first < 0) return this.append(name, value);
    const fields = this.fields;
    fields[first * STRIDE] = name;
    fields[first * STRIDE + VALUE] = String(value);
    for (let i = this.size - 1; i > first; i--) if (fields[i * STRIDE + KEY] === key) this.removeAt(i);
    return this;
  }

  append(name: string, value: string | number): this {
    this.fields.push(name, keyOf(name), String(value));
    return this;
  }

  /** Removes every field of `name`; true when there was one. */
  delete(name: string): boolean {
    const key = keyOf(name);
    let removed = false;
    for (let i = this.size - 1; i >= 0; i--) {
      if (this.fields[i * STRIDE + KEY] === key) {
        this.removeAt(i);
        removed = true;
      }
    }
    return removed;
  }

  /** [name as spelled, value] pairs in order. */
  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; i < this.size; i++) yield [this.fields[i * STRIDE], this.fields[i * STRIDE + VALUE]];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /**
   * The index of the first field of `name` at or after `from`, or -1. Looking up a name that is
   * not well known lower-cases nothing (a request is asked for names it mostly does not carry,
   * such as the session id of either dialect).
   */
  private indexOf(name: string, from: number): number {
    const key = KEYS.get(name);
    if (key !== undefined) return this.indexOfKey(key, from);
    const fields = this.fields;
    for (let i = from * STRIDE + KEY; i < fields.length; i += STRIDE) if (sameName(fields[i], name)) return (i - KEY) / STRIDE;
    return -1;
  }

  /** The index of the first field whose lookup key is `key`, at or after `from`, or -1. */
  private indexOfKey(key: string, from: number): number {
    const fields = this.fields;
    for (let i = from * STRIDE + KEY; i < fields.length; i += STRIDE) if (fields[i] === key) return (i - KEY) / STRIDE;
    return -1;
  }

  private removeAt(index: number): void {
    this.fields.splice(index * STRIDE, STRIDE);
  }
}

/** A field's entries in Headers.fields: name, then KEY, then VALUE. */
const STRIDE = 3;
const KEY = 1;
const VALUE = 2;

/**
 * The fields of `init` flattened into `out` as name, value, name, value... in order: what the
 * writer walks, with no Headers (three arrays and a lower-cased copy of each name) built for it.
 */
export function flattenHeaders(init: HeadersInit | undefined, out: string[]): string[] {
  if (init === undefined) return out;
  if (init instanceof Headers) {
    for (let i = 0; i < init.size; i++) out.push(init.nameAt(i), init.valueAt(i));
  } else if (isIterable(init)) {
    for (const [name, value] of init) out.push(name, String(value));
  } else {
    for (const name of Object.keys(init)) out.push(name, String(init[name]));
  }
  return out;
}

function isIterable(value: object): value is Iterable<readonly [string, string | number]> {
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

/**
 * The elements of a comma-separated list field across all its lines, trimmed and lower-cased,
 * empty elements dropped (RFC 9110 5.6.1). For Connection and Transfer-Encoding.
 */
export function listTokens(headers: Headers, name: string): string[] {
  const out: string[] = [];
  for (const value of headers.getAll(name)) {
    for (const element of value.split(',')) {
      const token = element.trim().toLowerCase();
      if (token) out.push(token);
    }
  }
  return out;
}
