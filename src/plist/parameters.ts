// The text/parameters body: one `name: value` per line (spec conventions, 4.2 POST /play, GET /scrub).

import { BytesError, utf8Decode, utf8Encode } from '../bytes';
import { PlistError } from './value';

interface ParametersLimits {
  /** Largest body accepted, in bytes (UTF-8 for a string). Default 64 KiB. */
  maxBytes?: number;
  /** Most lines, blank ones included. Default 1000. */
  maxLines?: number;
}

/** The media type of parameter bodies (spec conventions, 4.2; RTSP GET/SET_PARAMETER): not maker-named. */
export const TEXT_PARAMETERS = 'text/parameters';

/** A parameters body is a handful of lines (spec 4.2); these defaults leave ample room. */
export const DEFAULT_PARAMETERS_LIMITS: Required<ParametersLimits> = { maxBytes: 64 * 1024, maxLines: 1000 };

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Reads a text/parameters body into a Map in line order. A name given twice keeps its first
 * position and its last value. Lines end in CRLF, LF or a bare CR; blank lines are skipped; each
 * line is split at its first ':'; the name and the value lose surrounding spaces and tabs.
 * A line without ':' or with an empty name is a PlistError naming the line number.
 */
export function decodeParameters(input: Uint8Array | string, limits: ParametersLimits = {}): Map<string, string> {
  const maxBytes = limits.maxBytes ?? DEFAULT_PARAMETERS_LIMITS.maxBytes;
  const maxLines = limits.maxLines ?? DEFAULT_PARAMETERS_LIMITS.maxLines;
  let text: string;
  if (input instanceof Uint8Array) {
    if (input.length > maxBytes) throw new PlistError(`text/parameters: ${input.length} bytes exceed the limit of ${maxBytes}`);
    try {
      text = utf8Decode(input, true);
    } catch (error) {
      if (error instanceof BytesError) throw new PlistError(`text/parameters: ${error.message}`);
      throw error;
    }
  } else if (typeof input === 'string') {
    // UTF-8 never takes fewer bytes than UTF-16 units, so this check only lets through what fits.
    if (input.length > maxBytes || (input.length * 3 > maxBytes && utf8Encode(input).length > maxBytes)) {
      throw new PlistError(`text/parameters: body exceeds the limit of ${maxBytes} bytes`);
    }
    text = input;
  } else {
    throw new PlistError('text/parameters: input is neither bytes nor a string');
  }

  const result = new Map<string, string>();
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNumber = 0;
  while (pos < text.length) {
    lineNumber++;
    if (lineNumber > maxLines) throw new PlistError(`text/parameters: more than ${maxLines} lines`);
    let end = pos;
    while (end < text.length && text.charCodeAt(end) !== 0x0a && text.charCodeAt(end) !== 0x0d) end++;
    // Some senders end lines with a bare LF; CRLF is the HTTP habit.
    const next = text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
    let start = pos;
    pos = next;
    let stop = end;
    while (start < stop && isBlank(text.charCodeAt(start))) start++;
    while (stop > start && isBlank(text.charCodeAt(stop - 1))) stop--;
    if (start === stop) continue;
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon >= stop) throw new PlistError(`text/parameters: line ${lineNumber} has no ':'`);
    let nameEnd = colon;
    while (nameEnd > start && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd--;
    if (nameEnd === start) throw new PlistError(`text/parameters: line ${lineNumber} has an empty name`);
    let valueStart = colon + 1;
    while (valueStart < stop && isBlank(text.charCodeAt(valueStart))) valueStart++;
    result.set(text.slice(start, nameEnd), text.slice(valueStart, stop));
  }
  return result;
}

/**
 * A number as real receivers write it in text/parameters: six decimals (`duration: 83.124794`,
 * `position: 0.000000`); every number in these bodies is a float of seconds or a fraction
 * (spec 4.2 GET /scrub, POST /play Start-Position). Pass a string for any other format.
 */
function formatNumber(name: string, value: number): string {
  if (!Number.isFinite(value)) throw new PlistError(`text/parameters: ${name} is ${value}, not a finite number`);
  return value.toFixed(6);
}

function hasLineBreak(text: string): boolean {
  return text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0;
}

/**
 * Writes `name: value\n` lines in the given order (entries of an iterable such as a Map, or a
 * record's keys in enumeration order). Numbers get six decimals; strings are written as given.
 * A name that is empty or holds ':' or a line break, or a value with a line break, is a
 * PlistError: it could not be read back.
 */
export function encodeParameters(
  entries: Iterable<readonly [string, string | number]> | Record<string, string | number>,
): string {
  const pairs: Iterable<readonly [string, string | number]> =
    typeof (entries as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
      ? (entries as Iterable<readonly [string, string | number]>)
      : Object.keys(entries).map((key): [string, string | number] => [key, (entries as Record<string, string | number>)[key]]);
  let out = '';
  for (const [name, value] of pairs) {
    if (typeof name !== 'string' || name.length === 0 || name.indexOf(':') >= 0 || hasLineBreak(name)) {
      throw new PlistError(`text/parameters: bad name ${JSON.stringify(name)} (empty, or holds ':' or a line break)`);
    }
    let text: string;
    if (typeof value === 'number') text = formatNumber(name, value);
    else if (typeof value === 'string') text = value;
    else throw new PlistError(`text/parameters: ${name} is a ${typeof value}, not a string or number`);
    if (hasLineBreak(text)) throw new PlistError(`text/parameters: value of ${name} holds a line break`);
    out += `${name}: ${text}\n`;
  }
  return out;
}

/** encodeParameters as UTF-8 bytes. */
export function encodeParametersBytes(
  entries: Iterable<readonly [string, string | number]> | Record<string, string | number>,
): Uint8Array {
  return utf8Encode(encodeParameters(entries));
}
