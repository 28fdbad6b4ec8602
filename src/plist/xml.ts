// XML property lists: a bounded, non-recursive reader and the writer Apple and plistlib use.
//
// The reader is a small hand-written tokenizer over the UTF-8 bytes, driven by an explicit
// stack, so hostile input can neither recurse nor loop: every step moves forward, and depth,
// object count and size are limited (PlistLimits). It indexes the byte array, never a string:
// on XS, String.prototype.charCodeAt(i) walks the string from its start, so a string-indexed
// tokenizer would be quadratic there. Only the strings it returns are built.
//
// It is as liberal as Python's plistlib where that is harmless (no <plist> wrapper needed,
// attributes ignored, whitespace around numbers and dates, comments and processing instructions
// between elements) and strict where a lenient reader would silently lose data (unknown
// elements, text between elements, a key without a value, a second root value, unknown entities).

import { indexOf, joinBytes, latin1Decode, toBase64, utf8Decode, utf8Encode } from '../bytes';
import {
  DEFAULT_PLIST_LIMITS,
  PlistError,
  PlistReal,
  PlistUid,
  isPlistDict,
  setEntry,
  type PlistDict,
  type PlistLimits,
  type PlistValue,
} from './value';

/** The XML declaration every XML plist starts with. */
const XML_PLIST_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** The document type line of Apple's plist format; it is part of the file format, not decoration. */
export const XML_PLIST_DOCTYPE =
  '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">';

interface XmlPlistDecodeOptions {
  /** Overrides of DEFAULT_PLIST_LIMITS; the input is untrusted. */
  limits?: Partial<PlistLimits>;
  /** Decode every <real> as a PlistReal, so an integral real (2.0) keeps its type. */
  exactReals?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Reading

function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

// Element names as small integers, so the tokenizer compares names in place without slicing.
const E_UNKNOWN = -1;
const E_PLIST = 0;
const E_DICT = 1;
const E_ARRAY = 2;
const E_KEY = 3;
const E_STRING = 4;
const E_INTEGER = 5;
const E_REAL = 6;
const E_TRUE = 7;
const E_FALSE = 8;
const E_DATE = 9;
const E_DATA = 10;
const ELEMENT_NAMES = ['plist', 'dict', 'array', 'key', 'string', 'integer', 'real', 'true', 'false', 'date', 'data'];
const ELEMENT_NAME_BYTES = ELEMENT_NAMES.map(ascii);

const COMMENT_OPEN = ascii('<!--');
const COMMENT_CLOSE = ascii('-->');
const PI_OPEN = ascii('<?');
const PI_CLOSE = ascii('?>');
const CDATA_OPEN = ascii('<![CDATA[');
const CDATA_CLOSE = ascii(']]>');
const DOCTYPE_OPEN = ascii('<!DOCTYPE');
const XML_DECLARATION_OPEN = ascii('<?xml');
const ENCODING = ascii('encoding');

// What the last call of nextTag found.
const TAG_START = 0; // <name ...>
const TAG_EMPTY = 1; // <name .../>
const TAG_END = 2; // </name>
const TAG_EOF = 3; // end of input

const LT = 0x3c; // <
const GT = 0x3e; // >
const AMP = 0x26; // &
const SLASH = 0x2f; // /
const BANG = 0x21; // !
const CR = 0x0d;
const LF = 0x0a;

function isXmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === LF || code === CR;
}

function isNameStart(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code === 0x3a || code >= 0x80
  );
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function digitValue(code: number, base: number): number {
  let value = -1;
  if (code >= 0x30 && code <= 0x39) value = code - 0x30;
  else if (code >= 0x61 && code <= 0x66) value = code - 0x57;
  else if (code >= 0x41 && code <= 0x46) value = code - 0x37;
  return value < base ? value : -1;
}

/** True when `bytes` holds `pattern` at `pos`. */
function matchAt(bytes: Uint8Array, pos: number, pattern: Uint8Array): boolean {
  if (pos + pattern.length > bytes.length) return false;
  for (let i = 0; i < pattern.length; i++) if (bytes[pos + i] !== pattern[i]) return false;
  return true;
}

/** The string of bytes[start, end), which are valid UTF-8 (checked once for the whole input). */
function decodeRange(bytes: Uint8Array, start: number, end: number): string {
  for (let i = start; i < end; i++) {
    if (bytes[i] >= 0x80) return utf8Decode(bytes.subarray(start, end), false);
  }
  if (end - start <= 1024) {
    // One call with the bytes as arguments (apply takes any array-like): no per-byte work.
    return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
  }
  return latin1Decode(bytes.subarray(start, end));
}

/** Offset of the first malformed UTF-8 sequence (RFC 3629: no overlongs, surrogates or > U+10FFFF), or -1. */
function findInvalidUtf8(bytes: Uint8Array): number {
  const length = bytes.length;
  let i = 0;
  while (i < length) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      i++;
      continue;
    }
    let needed: number;
    let low = 0x80; // allowed range of the second byte
    let high = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) needed = 1;
    else if (b0 >= 0xe0 && b0 <= 0xef) {
      needed = 2;
      if (b0 === 0xe0) low = 0xa0; // overlong
      else if (b0 === 0xed) high = 0x9f; // surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      needed = 3;
      if (b0 === 0xf0) low = 0x90; // overlong
      else if (b0 === 0xf4) high = 0x8f; // above U+10FFFF
    } else return i;
    if (i + needed >= length) return i; // truncated
    const b1 = bytes[i + 1];
    if (b1 < low || b1 > high) return i;
    for (let k = 2; k <= needed; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += needed + 1;
  }
  return -1;
}

interface Frame {
  element: number; // E_DICT or E_ARRAY
  container: PlistDict | PlistValue[];
  /** In a dict: the key read and waiting for its value. */
  key: string | undefined;
}

const INTEGER_MIN = -(1n << 63n);
const INTEGER_MAX = (1n << 64n) - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

// Scalar content (integer, real, date, data) as a byte range: usually of the input itself.
interface Range {
  bytes: Uint8Array;
  start: number;
  end: number;
}

class XmlPlistReader {
  private pos = 0;
  private objects = 0;
  // The last tag nextTag found: kind, element id, where its name is, where its '<' is.
  private tagKind = TAG_EOF;
  private tagName = E_UNKNOWN;
  private tagNameStart = 0;
  private tagNameEnd = 0;
  private tagPos = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly maxDepth: number,
    private readonly maxObjects: number,
    private readonly exactReals: boolean,
  ) {}

  // --- errors ------------------------------------------------------------------------------

  /** Line and column (1-based; the column counts bytes) of `pos`, computed only for errors. */
  private where(pos: number): string {
    const bytes = this.bytes;
    let line = 1;
    let lineStart = 0;
    const end = Math.min(pos, bytes.length);
    for (let i = 0; i < end; i++) {
      const code = bytes[i];
      if (code === LF || (code === CR && bytes[i + 1] !== LF)) {
        line++;
        lineStart = i + 1;
      }
    }
    return `line ${line}, column ${pos - lineStart + 1}`;
  }

  private fail(what: string, pos: number, expected?: string): never {
    throw new PlistError(`xml plist: ${what} at ${this.where(pos)}${expected ? `, expected ${expected}` : ''}`);
  }

  private tagNameText(): string {
    return decodeRange(this.bytes, this.tagNameStart, this.tagNameEnd);
  }

  /** The current tag as written, for messages: `<foo>`, `<foo/>`, `</foo>` or `end of document`. */
  private describeTag(): string {
    if (this.tagKind === TAG_EOF) return 'end of document';
    const name = this.tagNameText();
    return this.tagKind === TAG_END ? `</${name}>` : this.tagKind === TAG_EMPTY ? `<${name}/>` : `<${name}>`;
  }

  /** Up to 20 bytes from pos, quoted, for messages. */
  private snippet(pos: number): string {
    const end = Math.min(this.bytes.length, pos + 20);
    const text = utf8Decode(this.bytes.subarray(pos, end), false);
    return JSON.stringify(end < this.bytes.length ? text + '...' : text);
  }

  /** bytes[start, end) quoted, for messages. */
  private quote(start: number, end: number, source: Uint8Array = this.bytes): string {
    const cut = Math.min(end, start + 40);
    return JSON.stringify(decodeRange(source, start, cut) + (end > cut ? '...' : ''));
  }

  private countObject(): void {
    if (++this.objects > this.maxObjects) this.fail(`more than ${this.maxObjects} objects`, this.tagPos);
  }

  // --- tokenizer ---------------------------------------------------------------------------

  private skipSpace(): void {
    const bytes = this.bytes;
    let pos = this.pos;
    while (pos < bytes.length && isXmlSpace(bytes[pos])) pos++;
    this.pos = pos;
  }

  /** Skips `<!-- ... -->` at pos. */
  private skipComment(): void {
    const end = indexOf(this.bytes, COMMENT_CLOSE, this.pos + 4);
    if (end < 0) this.fail('unclosed comment', this.pos);
    this.pos = end + 3;
  }

  /** Skips a processing instruction `<? ... ?>` at pos. */
  private skipProcessingInstruction(): void {
    const end = indexOf(this.bytes, PI_CLOSE, this.pos + 2);
    if (end < 0) this.fail('unclosed processing instruction', this.pos);
    this.pos = end + 2;
  }

  /** Reads a name at pos; returns its element id and leaves pos after it. */
  private readName(): number {
    const bytes = this.bytes;
    const start = this.pos;
    if (start >= bytes.length || !isNameStart(bytes[start])) this.fail('malformed tag', start - 1);
    let end = start + 1;
    while (end < bytes.length && isNameChar(bytes[end])) end++;
    this.tagNameStart = start;
    this.tagNameEnd = end;
    this.pos = end;
    // Pick the one candidate by length and first letter, then compare it whole.
    let id = E_UNKNOWN;
    const first = bytes[start];
    switch (end - start) {
      case 3:
        id = E_KEY;
        break;
      case 4:
        id = first === 0x64 ? (bytes[start + 1] === 0x69 ? E_DICT : bytes[start + 2] === 0x74 ? (bytes[start + 3] === 0x65 ? E_DATE : E_DATA) : E_UNKNOWN) : first === 0x72 ? E_REAL : E_TRUE;
        break;
      case 5:
        id = first === 0x70 ? E_PLIST : first === 0x61 ? E_ARRAY : E_FALSE;
        break;
      case 6:
        id = E_STRING;
        break;
      case 7:
        id = E_INTEGER;
        break;
    }
    return id !== E_UNKNOWN && matchAt(bytes, start, ELEMENT_NAME_BYTES[id]) ? id : E_UNKNOWN;
  }

  /** Reads a tag whose '<' is at pos (not a comment, PI or declaration). */
  private readTag(): void {
    const bytes = this.bytes;
    this.tagPos = this.pos;
    if (bytes[this.pos + 1] === SLASH) {
      this.pos += 2;
      this.tagName = this.readName();
      this.skipSpace();
      if (bytes[this.pos] !== GT) this.fail(`malformed end tag </${this.tagNameText()}`, this.tagPos);
      this.pos++;
      this.tagKind = TAG_END;
      return;
    }
    this.pos += 1;
    this.tagName = this.readName();
    const nameStart = this.tagNameStart;
    const nameEnd = this.tagNameEnd;
    // Attributes are checked for well-formedness and ignored, as plistlib ignores them.
    for (;;) {
      const before = this.pos;
      this.skipSpace();
      if (this.pos >= bytes.length) this.fail(`unclosed tag <${this.tagNameText()}`, this.tagPos);
      const code = bytes[this.pos];
      if (code === GT) {
        this.pos++;
        this.tagKind = TAG_START;
        return;
      }
      if (code === SLASH && bytes[this.pos + 1] === GT) {
        this.pos += 2;
        this.tagKind = TAG_EMPTY;
        return;
      }
      if (this.pos === before || !isNameStart(code)) this.fail(`malformed tag <${this.tagNameText()}`, this.tagPos);
      this.readName(); // the attribute's name
      this.tagNameStart = nameStart;
      this.tagNameEnd = nameEnd;
      this.skipSpace();
      if (bytes[this.pos] !== 0x3d) this.fail(`malformed attribute in <${this.tagNameText()}>`, this.pos);
      this.pos++;
      this.skipSpace();
      const quote = bytes[this.pos];
      if (quote !== 0x22 && quote !== 0x27) this.fail(`malformed attribute in <${this.tagNameText()}>`, this.pos);
      let end = this.pos + 1;
      while (end < bytes.length && bytes[end] !== quote) {
        if (bytes[end] === LT) this.fail(`malformed attribute in <${this.tagNameText()}>`, end);
        end++;
      }
      if (end >= bytes.length) this.fail(`unclosed attribute value in <${this.tagNameText()}>`, this.pos);
      this.pos = end + 1;
    }
  }

  /**
   * Moves to the next element tag, skipping whitespace, comments and processing instructions.
   * Any other text here (between elements) is an error: plistlib would drop it silently.
   */
  private nextTag(): void {
    const bytes = this.bytes;
    for (;;) {
      this.skipSpace();
      const pos = this.pos;
      if (pos >= bytes.length) {
        this.tagKind = TAG_EOF;
        this.tagPos = pos;
        return;
      }
      if (bytes[pos] !== LT) this.fail(`unexpected text ${this.snippet(pos)}`, pos);
      if (matchAt(bytes, pos, COMMENT_OPEN)) this.skipComment();
      else if (matchAt(bytes, pos, PI_OPEN)) this.skipProcessingInstruction();
      else if (matchAt(bytes, pos, CDATA_OPEN)) this.fail('unexpected CDATA section outside a string', pos);
      else if (bytes[pos + 1] === BANG) this.fail(`unexpected ${this.snippet(pos)}`, pos);
      else {
        this.readTag();
        return;
      }
    }
  }

  /** Reads the end tag at pos, which must close `element`. */
  private readEndTag(element: number, pos: number): void {
    this.pos = pos;
    this.readTag();
    if (this.tagName !== element) this.fail(`unexpected ${this.describeTag()}`, pos, `</${ELEMENT_NAMES[element]}>`);
  }

  /**
   * Reads the character data of a leaf element whose start tag has just been read, up to and
   * including its end tag. Entities, character references and CDATA are resolved, comments and
   * processing instructions dropped, and line ends normalised to LF (XML 1.0 section 2.11).
   */
  private readText(element: number): string {
    const bytes = this.bytes;
    const startTag = this.tagPos;
    let out = '';
    let run = this.pos;
    let pos = this.pos;
    for (;;) {
      // Fast scan to the next byte that needs attention.
      while (pos < bytes.length) {
        const code = bytes[pos];
        if (code === LT || code === AMP || code === CR) break;
        pos++;
      }
      if (pos >= bytes.length) {
        this.fail(`unclosed <${ELEMENT_NAMES[element]}>`, startTag, `</${ELEMENT_NAMES[element]}>`);
      }
      const code = bytes[pos];
      if (pos > run) out += decodeRange(bytes, run, pos);
      if (code === CR) {
        out += '\n';
        pos += bytes[pos + 1] === LF ? 2 : 1;
      } else if (code === AMP) {
        this.pos = pos;
        out += this.readReference();
        pos = this.pos;
      } else if (bytes[pos + 1] === SLASH) {
        this.readEndTag(element, pos);
        return out;
      } else if (matchAt(bytes, pos, CDATA_OPEN)) {
        const end = indexOf(bytes, CDATA_CLOSE, pos + 9);
        if (end < 0) this.fail('unclosed CDATA section', pos);
        const data = decodeRange(bytes, pos + 9, end);
        out += data.indexOf('\r') < 0 ? data : data.replace(/\r\n?/g, '\n');
        pos = end + 3;
      } else if (matchAt(bytes, pos, COMMENT_OPEN)) {
        this.pos = pos;
        this.skipComment();
        pos = this.pos;
      } else if (matchAt(bytes, pos, PI_OPEN)) {
        this.pos = pos;
        this.skipProcessingInstruction();
        pos = this.pos;
      } else {
        this.pos = pos;
        if (bytes[pos + 1] === BANG) this.fail(`unexpected ${this.snippet(pos)}`, pos);
        this.readTag();
        this.fail(`unexpected ${this.describeTag()} inside <${ELEMENT_NAMES[element]}>`, pos);
      }
      run = pos;
    }
  }

  /** Resolves the entity or character reference at pos (an '&'). */
  private readReference(): string {
    const bytes = this.bytes;
    const start = this.pos;
    // The longest legitimate reference, &#x10FFFF; with a few leading zeros, is far below 40.
    const limit = Math.min(bytes.length, start + 40);
    let end = start + 1;
    while (end < limit && bytes[end] !== 0x3b) end++;
    if (end >= limit) this.fail(`bad entity reference ${this.snippet(start)}`, start);
    this.pos = end + 1;
    if (bytes[start + 1] === 0x23) {
      // &#NN; or &#xHH;
      const base = bytes[start + 2] === 0x78 ? 16 : 10;
      let i = start + (base === 16 ? 3 : 2);
      if (i >= end) this.fail(`bad character reference ${this.quote(start, end + 1)}`, start);
      let code = 0;
      for (; i < end; i++) {
        const digit = digitValue(bytes[i], base);
        if (digit < 0) this.fail(`bad character reference ${this.quote(start, end + 1)}`, start);
        if (code <= 0x10ffff) code = code * base + digit;
      }
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        this.fail(`character reference ${this.quote(start, end + 1)} is not a character`, start);
      }
      return String.fromCodePoint(code);
    }
    const length = end - start - 1;
    const b1 = bytes[start + 1];
    const b2 = bytes[start + 2];
    if (length === 2 && b2 === 0x74 && (b1 === 0x6c || b1 === 0x67)) return b1 === 0x6c ? '<' : '>'; // lt gt
    if (length === 3 && b1 === 0x61 && b2 === 0x6d && bytes[start + 3] === 0x70) return '&'; // amp
    if (length === 4 && b1 === 0x71 && b2 === 0x75 && bytes[start + 3] === 0x6f && bytes[start + 4] === 0x74) return '"';
    if (length === 4 && b1 === 0x61 && b2 === 0x70 && bytes[start + 3] === 0x6f && bytes[start + 4] === 0x73) return "'";
    return this.fail(`unknown entity ${this.quote(start, end + 1)}`, start);
  }

  /**
   * The content of a scalar element (integer, real, date, data, true, false) whose start tag
   * has just been read, with surrounding whitespace trimmed. Plain content is a view of the
   * input; content with references, CDATA or comments (legal XML, never written by Apple or
   * plistlib) is resolved as text first.
   */
  private readScalarContent(element: number, empty: boolean): Range {
    const bytes = this.bytes;
    let source = bytes;
    let start = this.pos;
    let end = start;
    if (empty) end = start;
    else {
      while (end < bytes.length && bytes[end] !== LT && bytes[end] !== AMP) end++;
      if (end < bytes.length && bytes[end] === LT && bytes[end + 1] === SLASH) this.readEndTag(element, end);
      else {
        const text = this.readText(element);
        // Scalars are ASCII; anything else becomes 0xff, which no scalar syntax accepts.
        source = new Uint8Array(text.length);
        let length = 0;
        for (const character of text) {
          const code = character.charCodeAt(0);
          source[length++] = code < 0x80 ? code : 0xff;
        }
        start = 0;
        end = length;
      }
    }
    while (start < end && isXmlSpace(source[start])) start++;
    while (end > start && isXmlSpace(source[end - 1])) end--;
    return { bytes: source, start, end };
  }

  // --- document ----------------------------------------------------------------------------

  read(): PlistValue {
    const bytes = this.bytes;
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) this.pos = 3; // BOM
    this.readProlog();
    this.nextTag();
    let wrapped = false;
    if (this.tagKind === TAG_EOF) this.fail('no root element', this.pos);
    if (this.tagKind === TAG_END) this.fail(`unexpected ${this.describeTag()}`, this.tagPos);
    if (this.tagName === E_PLIST) {
      // plistlib ignores the wrapper entirely; we accept documents with or without it.
      wrapped = true;
      if (this.tagKind === TAG_EMPTY) this.fail('empty <plist/>', this.tagPos, 'a value');
      this.nextTag();
      if (this.tagKind !== TAG_START && this.tagKind !== TAG_EMPTY) {
        this.fail(`unexpected ${this.describeTag()}`, this.tagPos, 'a value in <plist>');
      }
    }
    const value = this.readValue();
    this.nextTag();
    if (wrapped) {
      if (this.tagKind !== TAG_END || this.tagName !== E_PLIST) {
        // A second value in <plist> lands here: plistlib would keep the last one silently.
        this.fail(`unexpected ${this.describeTag()}`, this.tagPos, '</plist>');
      }
      this.nextTag();
    }
    if (this.tagKind !== TAG_EOF) this.fail(`unexpected ${this.describeTag()} after the root value`, this.tagPos);
    return value;
  }

  /** The XML declaration, comments, processing instructions and one DOCTYPE before the root. */
  private readProlog(): void {
    const bytes = this.bytes;
    if (matchAt(bytes, this.pos, XML_DECLARATION_OPEN) && isXmlSpace(bytes[this.pos + 5])) {
      const start = this.pos;
      this.skipProcessingInstruction();
      this.checkEncoding(start, this.pos);
    }
    let doctype = false;
    for (;;) {
      this.skipSpace();
      if (matchAt(bytes, this.pos, COMMENT_OPEN)) this.skipComment();
      else if (matchAt(bytes, this.pos, PI_OPEN)) this.skipProcessingInstruction();
      else if (!doctype && matchAt(bytes, this.pos, DOCTYPE_OPEN)) {
        doctype = true;
        this.skipDoctype();
      } else return;
    }
  }

  /** The input is read as UTF-8, so a declaration naming another encoding cannot be honoured. */
  private checkEncoding(start: number, end: number): void {
    const bytes = this.bytes;
    const at = indexOf(bytes.subarray(start, end), ENCODING);
    if (at < 0) return;
    let i = start + at + ENCODING.length;
    while (i < end && isXmlSpace(bytes[i])) i++;
    if (bytes[i] !== 0x3d) return;
    i++;
    while (i < end && isXmlSpace(bytes[i])) i++;
    const quote = bytes[i];
    let close = i + 1;
    while (close < end && bytes[close] !== quote) close++;
    if ((quote !== 0x22 && quote !== 0x27) || close >= end) this.fail('malformed XML declaration', start);
    const name = decodeRange(bytes, i + 1, close);
    const lower = name.toLowerCase();
    if (lower !== 'utf-8' && lower !== 'utf8' && lower !== 'us-ascii' && lower !== 'ascii') {
      this.fail(`unsupported encoding ${JSON.stringify(name)} (only UTF-8 is read)`, start);
    }
  }

  private skipDoctype(): void {
    const bytes = this.bytes;
    const start = this.pos;
    let pos = start + DOCTYPE_OPEN.length;
    for (;;) {
      if (pos >= bytes.length) this.fail('unclosed <!DOCTYPE', start);
      const code = bytes[pos];
      if (code === GT) break;
      if (code === 0x22 || code === 0x27) {
        pos++;
        while (pos < bytes.length && bytes[pos] !== code) pos++;
        if (pos >= bytes.length) this.fail('unclosed <!DOCTYPE', start);
        pos++;
        continue;
      }
      // An internal subset can declare entities; plistlib refuses those, and so do we.
      if (code === 0x5b) this.fail('DOCTYPE internal subsets are not supported', pos);
      pos++;
    }
    this.pos = pos + 1;
  }

  /**
   * Reads one value whose start tag is the current tag, with an explicit stack of open
   * containers instead of recursion, so depth costs heap (bounded by maxDepth), not call stack.
   */
  private readValue(): PlistValue {
    const stack: Frame[] = [];
    for (;;) {
      let value: PlistValue;
      const top = stack.length > 0 ? stack[stack.length - 1] : undefined;
      if (this.tagKind === TAG_EOF || this.tagKind === TAG_END) {
        if (top === undefined) return this.fail(`unexpected ${this.describeTag()}`, this.tagPos);
        if (this.tagKind === TAG_EOF || this.tagName !== top.element) {
          this.fail(`unexpected ${this.describeTag()}`, this.tagPos, `</${ELEMENT_NAMES[top.element]}>`);
        }
        if (top.key !== undefined) this.fail(`missing value for key ${JSON.stringify(top.key)}`, this.tagPos);
        stack.pop();
        value = top.container;
      } else {
        const empty = this.tagKind === TAG_EMPTY;
        if (top !== undefined && top.element === E_DICT && top.key === undefined) {
          if (this.tagName !== E_KEY) this.fail(`unexpected ${this.describeTag()} in <dict>`, this.tagPos, '<key>');
          this.countObject();
          top.key = empty ? '' : this.readText(E_KEY);
          this.nextTag();
          continue;
        }
        switch (this.tagName) {
          case E_DICT:
          case E_ARRAY: {
            this.countObject();
            if (stack.length >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, this.tagPos);
            const frame: Frame = { element: this.tagName, container: this.tagName === E_DICT ? {} : [], key: undefined };
            if (empty) {
              value = frame.container;
              break;
            }
            stack.push(frame);
            this.nextTag();
            continue;
          }
          case E_STRING:
            this.countObject();
            value = empty ? '' : this.readText(E_STRING);
            break;
          case E_INTEGER:
          case E_REAL:
          case E_DATE:
          case E_DATA:
          case E_TRUE:
          case E_FALSE:
            this.countObject();
            value = this.readScalar(this.tagName, empty);
            break;
          case E_KEY:
            return this.fail(`unexpected <key> ${top ? 'in <array>' : 'outside a <dict>'}`, this.tagPos);
          case E_PLIST:
            return this.fail('unexpected <plist> inside a value', this.tagPos);
          default:
            return this.fail(`unknown element ${this.describeTag()}`, this.tagPos);
        }
      }
      const parent = stack.length > 0 ? stack[stack.length - 1] : undefined;
      if (parent === undefined) return value;
      if (parent.element === E_DICT) {
        setEntry(parent.container as PlistDict, parent.key as string, value);
        parent.key = undefined;
      } else {
        (parent.container as PlistValue[]).push(value);
      }
      this.nextTag();
    }
  }

  /** integer, real, date, data, true, false: text with surrounding whitespace allowed. */
  private readScalar(element: number, empty: boolean): PlistValue {
    const at = this.tagPos;
    const { bytes, start, end } = this.readScalarContent(element, empty);
    switch (element) {
      case E_TRUE:
      case E_FALSE:
        if (end > start) this.fail(`unexpected text in <${ELEMENT_NAMES[element]}>`, at);
        return element === E_TRUE;
      case E_INTEGER: {
        const value = parseInteger(bytes, start, end);
        if (value === undefined) this.fail(`bad <integer> ${this.quote(start, end, bytes)}`, at);
        if (value === null) this.fail(`<integer> ${this.quote(start, end, bytes)} is out of the 64-bit range`, at);
        return value;
      }
      case E_REAL: {
        const value = parseReal(bytes, start, end);
        if (value === undefined) this.fail(`bad <real> ${this.quote(start, end, bytes)}`, at);
        return this.exactReals ? new PlistReal(value) : value;
      }
      case E_DATE: {
        const value = parseDate(bytes, start, end);
        if (value === undefined) this.fail(`bad <date> ${this.quote(start, end, bytes)}`, at);
        return value;
      }
      default: {
        const value = decodeBase64(bytes, start, end);
        if (typeof value === 'string') this.fail(`bad <data>: ${value}`, at);
        return value;
      }
    }
  }
}

/**
 * An <integer>: optional sign, decimal digits or 0x hex digits (plistlib accepts 0x). A number
 * when safe, else a bigint; undefined when malformed, null when beyond the 64-bit range plists
 * hold (-2^63 to 2^64 - 1).
 */
function parseInteger(bytes: Uint8Array, start: number, end: number): number | bigint | undefined | null {
  let i = start;
  const negative = i < end && bytes[i] === 0x2d;
  if (negative || (i < end && bytes[i] === 0x2b)) i++;
  let base = 10;
  if (bytes[i] === 0x30 && (bytes[i + 1] | 0x20) === 0x78 && i + 1 < end) {
    base = 16;
    i += 2;
  }
  if (i >= end) return undefined;
  for (let k = i; k < end; k++) if (digitValue(bytes[k], base) < 0) return undefined;
  while (i < end - 1 && bytes[i] === 0x30) i++; // leading zeros
  const significant = end - i;
  // Up to 13 hex or 15 decimal digits stay below 2^53: accumulate exactly as a number.
  if (significant <= (base === 16 ? 13 : 15)) {
    let value = 0;
    for (let k = i; k < end; k++) value = value * base + digitValue(bytes[k], base);
    return negative && value !== 0 ? -value : value;
  }
  if (significant > (base === 16 ? 16 : 20)) return null;
  let big = BigInt((base === 16 ? '0x' : '') + latin1Decode(bytes.subarray(i, end)));
  if (negative) big = -big;
  if (big < INTEGER_MIN || big > INTEGER_MAX) return null;
  return big >= SAFE_MIN && big <= SAFE_MAX ? Number(big) : big;
}

const NAN_BYTES = ascii('nan');
const INF_BYTES = ascii('inf');
const INFINITY_BYTES = ascii('infinity');

/** Case-insensitive match of the whole of bytes[start, end) against a lower-case word. */
function isWord(bytes: Uint8Array, start: number, end: number, word: Uint8Array): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) if ((bytes[start + i] | 0x20) !== word[i]) return false;
  return true;
}

/**
 * A <real>: Python float() syntax without its underscores: [+-] digits [. digits] [e [+-] digits],
 * or nan, inf, infinity in any case (plistlib writes nan, inf, -inf).
 */
function parseReal(bytes: Uint8Array, start: number, end: number): number | undefined {
  let i = start;
  const sign = i < end ? bytes[i] : 0;
  if (sign === 0x2b || sign === 0x2d) i++;
  if (isWord(bytes, i, end, NAN_BYTES)) return NaN;
  if (isWord(bytes, i, end, INF_BYTES) || isWord(bytes, i, end, INFINITY_BYTES)) return sign === 0x2d ? -Infinity : Infinity;
  let digits = 0;
  while (i < end && isDigit(bytes[i])) {
    i++;
    digits++;
  }
  if (i < end && bytes[i] === 0x2e) {
    i++;
    while (i < end && isDigit(bytes[i])) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return undefined;
  if (i < end && (bytes[i] | 0x20) === 0x65) {
    i++;
    if (i < end && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
    const exponentStart = i;
    while (i < end && isDigit(bytes[i])) i++;
    if (i === exponentStart) return undefined;
  }
  if (i !== end) return undefined;
  // The text now has the syntax of a JavaScript StrDecimalLiteral, which Number() rounds
  // correctly, as Python's float() does.
  return Number(latin1Decode(bytes.subarray(start, end)));
}

/** The decimal value of `count` digits at `pos` (not beyond `end`), or -1. */
function digitsValue(bytes: Uint8Array, pos: number, count: number, end: number): number {
  if (pos + count > end) return -1;
  let value = 0;
  for (let k = pos; k < pos + count; k++) {
    if (!isDigit(bytes[k])) return -1;
    value = value * 10 + bytes[k] - 0x30;
  }
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE_SEPARATORS = [0x2d, 0x2d, 0x54, 0x3a, 0x3a]; // - - T : :

/**
 * A <date>: YYYY[-MM[-DD[THH[:MM[:SS[.fff]]]]]]Z, always UTC. plistlib's pattern allows each
 * shorter form (missing parts are the start of the period); fractional seconds are accepted
 * too and kept to the millisecond (truncated).
 */
function parseDate(bytes: Uint8Array, start: number, end: number): Date | undefined {
  let i = start;
  const parts = [1, 1, 1, 0, 0, 0];
  parts[0] = digitsValue(bytes, i, 4, end);
  if (parts[0] < 0) return undefined;
  i += 4;
  let milliseconds = 0;
  for (let p = 1; p < 6; p++) {
    if (i >= end || bytes[i] !== DATE_SEPARATORS[p - 1]) break;
    i++;
    parts[p] = digitsValue(bytes, i, 2, end);
    if (parts[p] < 0) return undefined;
    i += 2;
    if (p === 5 && i < end && bytes[i] === 0x2e) {
      i++;
      const fractionStart = i;
      let scale = 100;
      while (i < end && isDigit(bytes[i])) {
        if (scale >= 1) milliseconds += (bytes[i] - 0x30) * scale;
        scale /= 10;
        i++;
      }
      if (i === fractionStart) return undefined;
    }
  }
  if (i !== end - 1 || bytes[i] !== 0x5a) return undefined;
  const [year, month, day, hour, minute, second] = parts;
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (day < 1 || day > days) return undefined;
  // Date.UTC maps years 0 to 99 to 1900 to 1999, so the year is set separately.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, milliseconds);
  return date;
}

const BASE64_DIGITS = ascii('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
const BASE64_VALUES = new Int8Array(256).fill(-1);
for (let i = 0; i < BASE64_DIGITS.length; i++) BASE64_VALUES[BASE64_DIGITS[i]] = i;

/**
 * Base64 of <data>, from the bytes (bytes.ts fromBase64 takes a string, which XS would index
 * slowly). Whitespace is skipped, padding may be missing (as in fromBase64); returns the
 * reason as a string when malformed.
 */
function decodeBase64(bytes: Uint8Array, start: number, end: number): Uint8Array | string {
  const out = new Uint8Array(Math.floor(((end - start) * 3) / 4) + 3);
  let length = 0;
  let accumulator = 0;
  let bits = 0;
  let digits = 0;
  let padding = 0;
  for (let i = start; i < end; i++) {
    const code = bytes[i];
    if (code === 0x20 || code === 0x09 || code === LF || code === CR || code === 0x0c) continue;
    if (code === 0x3d) {
      padding++;
      continue;
    }
    const value = BASE64_VALUES[code];
    if (value < 0 || padding > 0) return `invalid base64 character at offset ${i - start}`;
    digits++;
    accumulator = ((accumulator << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (accumulator >> bits) & 0xff;
    }
  }
  if (digits % 4 === 1) return 'truncated base64 (one digit left over)';
  if (padding > 2) return `too much base64 padding (${padding} '=')`;
  return out.slice(0, length);
}

function limitOf(limits: Partial<PlistLimits> | undefined, name: keyof PlistLimits): number {
  const value = limits?.[name];
  return value === undefined ? DEFAULT_PLIST_LIMITS[name] : value;
}

/**
 * Decodes an XML property list from UTF-8 bytes (the efficient form, as a body arrives) or a
 * string (encoded to UTF-8 first). Throws PlistError, and nothing else, for any malformed or
 * over-limit input.
 */
export function decodeXmlPlist(input: Uint8Array | string, options: XmlPlistDecodeOptions = {}): PlistValue {
  const maxBytes = limitOf(options.limits, 'maxBytes');
  let bytes: Uint8Array;
  if (input instanceof Uint8Array) bytes = input;
  else if (typeof input === 'string') {
    // A UTF-16 unit never takes fewer UTF-8 bytes, so a long string fails before encoding.
    if (input.length > maxBytes) throw new PlistError(`xml plist: ${input.length} characters exceed the limit of ${maxBytes} bytes`);
    bytes = utf8Encode(input);
  } else throw new PlistError('xml plist: input is neither bytes nor a string');
  if (bytes.length > maxBytes) throw new PlistError(`xml plist: ${bytes.length} bytes exceed the limit of ${maxBytes}`);
  if (bytes.length >= 2 && ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe))) {
    throw new PlistError('xml plist: UTF-16 documents are not supported (only UTF-8)');
  }
  const invalid = findInvalidUtf8(bytes);
  if (invalid >= 0) {
    let line = 1;
    for (let i = 0; i < invalid; i++) if (bytes[i] === LF) line++;
    throw new PlistError(`xml plist: invalid UTF-8 at offset ${invalid} (line ${line})`);
  }
  const reader = new XmlPlistReader(
    bytes,
    limitOf(options.limits, 'maxDepth'),
    limitOf(options.limits, 'maxObjects'),
    options.exactReals === true,
  );
  return reader.read();
}

// ---------------------------------------------------------------------------------------------
// Writing

const INDENTS: string[] = [''];
function indent(level: number): string {
  while (INDENTS.length <= level) INDENTS.push(INDENTS[INDENTS.length - 1] + '\t');
  return INDENTS[level];
}

/** A key path for messages: root, root.settings, root.items[2], root["odd key"]. */
function formatPath(path: (string | number)[], depth: number): string {
  let out = 'root';
  for (let i = 0; i < depth; i++) {
    const step = path[i];
    if (typeof step === 'number') out += `[${step}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(step)) out += `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}

// Characters XML 1.0 cannot carry (section 2.2): control characters other than tab, LF and CR,
// U+FFFE, U+FFFF and, with the u flag, lone surrogates (a proper pair is one code point).
const FORBIDDEN_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/u;
const NEEDS_ESCAPE = /[&<>\r]/;

function escapeCharacter(character: string): string {
  return character === '&' ? '&amp;' : character === '<' ? '&lt;' : character === '>' ? '&gt;' : '&#13;';
}

/**
 * Escapes & < > and writes CR as &#13; (a raw CR would be read back as LF, XML 1.0 section
 * 2.11). Returns undefined when the text holds a character XML 1.0 cannot carry; plistlib
 * refuses control characters too. Regular expressions, not a charCodeAt loop: on XS, indexing
 * a string walks it from the start.
 */
function escapeText(text: string): string | undefined {
  if (FORBIDDEN_IN_XML.test(text)) return undefined;
  // A literal here is a new RegExp per call: replace writes a global one's lastIndex, which a
  // module-level one preloaded on a board would refuse (XS keeps it read-only).
  return NEEDS_ESCAPE.test(text) ? text.replace(/[&<>\r]/g, escapeCharacter) : text;
}

/**
 * Python's repr() of a float: the shortest digits that read back as the same double, in
 * exponent form below 1e-4 and from 1e16 up, and always with a '.0' or exponent so the value
 * reads back as a real. nan, inf and -inf as plistlib writes them.
 */
export function formatReal(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const negative = value < 0;
  // toExponential() without a digit count gives the shortest round-trip digits.
  const exponential = Math.abs(value).toExponential();
  const e = exponential.indexOf('e');
  const digits = exponential.slice(0, e).replace('.', '');
  const exponent = Number(exponential.slice(e + 1));
  let out: string;
  if (exponent < -4 || exponent >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = Math.abs(exponent);
    out = `${mantissa}e${exponent < 0 ? '-' : '+'}${magnitude < 10 ? '0' : ''}${magnitude}`;
  } else if (exponent < 0) {
    out = `0.${'0'.repeat(-exponent - 1)}${digits}`;
  } else if (digits.length > exponent + 1) {
    out = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  } else {
    out = `${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
  }
  return negative ? `-${out}` : out;
}

function pad(value: number, width: number): string {
  let text = String(value);
  while (text.length < width) text = '0' + text;
  return text;
}

/** A container being written: its entries are visited one per step of the writer's loop. */
interface WriteFrame {
  array: PlistValue[] | undefined;
  dict: PlistDict | undefined;
  keys: string[] | undefined;
  index: number;
  closeTag: string;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const proto: unknown = Object.getPrototypeOf(value);
  const name = proto && (proto as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name ? `a ${name}` : 'an object';
}

function isPlainDict(value: unknown): value is PlistDict {
  if (!isPlistDict(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Writes a value as an XML property list, in the layout Apple and plistlib write (tab indents,
 * root at column 0, data in base64 lines). Dictionary keys keep insertion order (as the object
 * enumerates them: integer-like keys first). Throws PlistError, naming the key path, for
 * values XML cannot hold: PlistUid, undefined, null, functions, non-plain objects, a container
 * that contains itself, invalid dates, integers beyond 64 bits, strings with characters XML 1.0
 * forbids.
 */
export function encodeXmlPlist(value: PlistValue): string {
  return writeParts(value).join('');
}

/**
 * encodeXmlPlist as UTF-8 bytes. The parts are encoded one by one: on XS, utf8Encode's
 * charCodeAt(i) walks the string from its start, so one call on the whole document would be
 * quadratic in its length, while the parts (tags, keys, values, base64 lines) are short.
 */
export function encodeXmlPlistBytes(value: PlistValue): Uint8Array {
  return joinBytes(writeParts(value).map((part) => utf8Encode(part)));
}

/** The document as a list of strings: the writer's loop, shared by both encode functions. */
function writeParts(value: PlistValue): string[] {
  const out: string[] = [XML_PLIST_DECLARATION, '\n', XML_PLIST_DOCTYPE, '\n', '<plist version="1.0">\n'];
  const stack: WriteFrame[] = [];
  const open = new Set<object>(); // containers on the current path, to catch cycles
  const path: (string | number)[] = [];
  const fail = (what: string): never => {
    throw new PlistError(`xml plist: ${what} at ${formatPath(path, stack.length)}`);
  };
  const text = (raw: string, what: string): string => {
    const escaped = escapeText(raw);
    if (escaped === undefined) fail(`${what} holds a character XML 1.0 cannot carry (control character, U+FFFE, U+FFFF or lone surrogate)`);
    return escaped as string;
  };

  let current: unknown = value;
  for (;;) {
    const level = stack.length;
    const tabs = indent(level);
    const item = current;
    if (typeof item === 'string') {
      out.push(tabs, '<string>', text(item, 'string'), '</string>\n');
    } else if (typeof item === 'boolean') {
      out.push(tabs, item ? '<true/>\n' : '<false/>\n');
    } else if (typeof item === 'number') {
      if (Number.isSafeInteger(item)) out.push(tabs, '<integer>', String(item), '</integer>\n');
      else out.push(tabs, '<real>', formatReal(item), '</real>\n');
    } else if (typeof item === 'bigint') {
      if (item < INTEGER_MIN || item > INTEGER_MAX) fail(`integer ${item} is beyond the 64-bit range`);
      out.push(tabs, '<integer>', item.toString(), '</integer>\n');
    } else if (item instanceof PlistReal) {
      if (typeof item.value !== 'number') fail('PlistReal without a number');
      out.push(tabs, '<real>', formatReal(item.value), '</real>\n');
    } else if (item instanceof Date) {
      const time = item.getTime();
      if (Number.isNaN(time)) fail('invalid Date');
      const year = item.getUTCFullYear();
      if (year < 1 || year > 9999) fail(`Date in year ${year} (XML dates hold years 1 to 9999)`);
      // Sub-second parts are dropped, as plistlib does: XML dates have second precision.
      out.push(
        tabs,
        '<date>',
        `${pad(year, 4)}-${pad(item.getUTCMonth() + 1, 2)}-${pad(item.getUTCDate(), 2)}T`,
        `${pad(item.getUTCHours(), 2)}:${pad(item.getUTCMinutes(), 2)}:${pad(item.getUTCSeconds(), 2)}Z`,
        '</date>\n',
      );
    } else if (item instanceof Uint8Array) {
      // plistlib's layout: lines at the tag's indent, 76 columns less the indent (tab = 8), at least 16.
      out.push(tabs, '<data>\n');
      const lineLength = Math.max(16, 76 - 8 * level);
      const bytesPerLine = Math.floor(lineLength / 4) * 3;
      for (let offset = 0; offset < item.length; offset += bytesPerLine) {
        out.push(tabs, toBase64(item.subarray(offset, Math.min(offset + bytesPerLine, item.length))), '\n');
      }
      out.push(tabs, '</data>\n');
    } else if (item instanceof PlistUid) {
      fail('a UID (PlistUid) cannot be written in an XML plist');
    } else if (Array.isArray(item) || isPlainDict(item)) {
      if (open.has(item)) fail('a container that contains itself');
      const keys = Array.isArray(item) ? undefined : Object.keys(item);
      const size = keys === undefined ? (item as PlistValue[]).length : keys.length;
      const tag = keys === undefined ? 'array' : 'dict';
      if (size === 0) out.push(tabs, `<${tag}/>\n`);
      else {
        out.push(tabs, `<${tag}>\n`);
        open.add(item);
        stack.push({
          array: keys === undefined ? (item as PlistValue[]) : undefined,
          dict: keys === undefined ? undefined : (item as PlistDict),
          keys,
          index: 0,
          closeTag: `</${tag}>\n`,
        });
      }
    } else {
      fail(`cannot write ${describeType(item)}`);
    }

    // Move to the next entry, closing every container that is finished.
    let next = false;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.keys !== undefined) {
        if (frame.index < frame.keys.length) {
          const key = frame.keys[frame.index++];
          path[stack.length - 1] = key;
          out.push(indent(stack.length), '<key>', text(key, 'key'), '</key>\n');
          current = (frame.dict as PlistDict)[key];
          next = true;
          break;
        }
      } else {
        const array = frame.array as PlistValue[];
        if (frame.index < array.length) {
          path[stack.length - 1] = frame.index;
          current = array[frame.index++];
          next = true;
          break;
        }
      }
      stack.pop();
      open.delete((frame.array ?? frame.dict) as object);
      out.push(indent(stack.length), frame.closeTag);
    }
    if (!next) break;
  }
  out.push('</plist>\n');
  return out;
}
