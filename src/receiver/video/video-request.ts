// What video requests carry (spec 4.2): the POST /play body (text/parameters or a binary plist),
// the numbers of the /scrub and /rate queries, and the CMTime body of PUT /setProperty. Each
// reader returns plain values or throws VideoRequestError with a reason a sender's author can act on.
//
// Real senders, and what is accepted from them:
// - Body format: the content decides, not Content-Type (npm airplay-protocol sends its
//   text/parameters body with no Content-Type at all; iOS labels its binary plist). A body that
//   starts with `bplist` or `<` is a property list (binary or XML), anything else text/parameters.
// - Start position: spec 4.2 gives Start-Position, a fraction 0..1 of the duration. iOS and
//   Apple TV era senders also send Start-Position-Seconds (a real, seconds from the start; UxPlay
//   plays from it), which says exactly where to start even before the duration is known: when
//   both are present the seconds win. A Start-Position outside 0..1 is refused (400).
// - pyatv names its session inside the binary plist (X-Apple-Session-ID), not in a header: that
//   key is read, in either dialect, when the request has no session header.
// - `rate` 0 in the binary plist asks to start paused (Photos' camera-roll videos; Kodi honours
//   it); any other rate, or none, plays.

import { utf8Encode } from '../../bytes';
import { readMakerHeader } from '../../dialect';
import { describeError, RequestError } from '../../errors';
import { STATUS } from '../../http';
import { decodePlist } from '../../plist/any';
import { decodeParameters } from '../../plist/parameters';
import type { StartPosition } from '../../platform';
import { getEntry, isPlistDict, PlistReal, type PlistDict, type PlistValue } from '../../plist/value';

/** A request whose inputs cannot be used (400); the message says why. */
export class VideoRequestError extends RequestError {
  override name = 'VideoRequestError';

  constructor(reason: string) {
    super(STATUS.badRequest, reason);
  }
}

/** spec 4.2 POST /play keys, and the seconds form real senders add. */
const PLAY_KEYS = {
  location: 'Content-Location',
  startFraction: 'Start-Position',
  startSeconds: 'Start-Position-Seconds',
  rate: 'rate',
} as const;

/** What a POST /play asks. */
interface PlayRequest {
  /** The video's URL (http or https). */
  readonly url: string;
  readonly start: StartPosition;
  /** The sender asked to start paused (binary plist `rate` 0). */
  readonly startPaused: boolean;
  /** The session the body names (pyatv); the request's header, when present, wins. */
  readonly sessionId?: string;
}

const LESS_THAN = 0x3c;
const BPLIST = [0x62, 0x70, 0x6c, 0x69, 0x73, 0x74];

function isPlistBody(body: Uint8Array): boolean {
  let at = 0;
  // An XML plist may follow a byte-order mark or blank lines.
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) at = 3;
  while (at < body.length && (body[at] === 0x20 || body[at] === 0x09 || body[at] === 0x0d || body[at] === 0x0a)) at++;
  if (body[at] === LESS_THAN) return true;
  if (body.length < BPLIST.length) return false;
  for (let i = 0; i < BPLIST.length; i++) if (body[i] !== BPLIST[i]) return false;
  return true;
}

/** spec 4.2: reads a POST /play body. Throws VideoRequestError. */
export function readPlayRequest(body: Uint8Array, maxUrlBytes: number): PlayRequest {
  if (body.length === 0) throw new VideoRequestError(`no body: POST /play needs ${PLAY_KEYS.location} (text/parameters or a binary plist)`);
  return isPlistBody(body) ? readPlistPlay(body, maxUrlBytes) : readParametersPlay(body, maxUrlBytes);
}

function readParametersPlay(body: Uint8Array, maxUrlBytes: number): PlayRequest {
  let lines: Map<string, string>;
  try {
    lines = decodeParameters(body);
  } catch (error) {
    throw new VideoRequestError(`body is neither a property list nor text/parameters: ${describeError(error)}`);
  }
  // Names as senders write them, matched without regard to case (`content-location` too).
  const byName = new Map<string, string>();
  for (const [name, value] of lines) byName.set(name.toLowerCase(), value);
  const location = byName.get(PLAY_KEYS.location.toLowerCase());
  if (location === undefined) throw new VideoRequestError(`text/parameters body without ${PLAY_KEYS.location}`);
  const fraction = byName.get(PLAY_KEYS.startFraction.toLowerCase());
  const seconds = byName.get(PLAY_KEYS.startSeconds.toLowerCase());
  return {
    url: checkUrl(location, maxUrlBytes),
    start: startOf(fraction === undefined ? undefined : numberText(PLAY_KEYS.startFraction, fraction), seconds === undefined ? undefined : numberText(PLAY_KEYS.startSeconds, seconds)),
    startPaused: false,
  };
}

/** A body that must be a property list dictionary (binary or XML); VideoRequestError says why not. */
function readPlistDict(body: Uint8Array): PlistDict {
  let plist: PlistValue;
  try {
    plist = decodePlist(body);
  } catch (error) {
    throw new VideoRequestError(`body is not a property list: ${describeError(error)}`);
  }
  if (!isPlistDict(plist)) throw new VideoRequestError('body is a property list but not a dictionary');
  return plist;
}

function readPlistPlay(body: Uint8Array, maxUrlBytes: number): PlayRequest {
  const plist = readPlistDict(body);
  const location = getEntry(plist, PLAY_KEYS.location);
  if (location === undefined) throw new VideoRequestError(`property list without ${PLAY_KEYS.location}`);
  if (typeof location !== 'string') throw new VideoRequestError(`${PLAY_KEYS.location} is ${describeValue(location)}, not a string`);
  const fraction = getEntry(plist, PLAY_KEYS.startFraction);
  const seconds = getEntry(plist, PLAY_KEYS.startSeconds);
  const rate = getEntry(plist, PLAY_KEYS.rate);
  const rateValue = rate === undefined ? undefined : plistNumber(PLAY_KEYS.rate, rate);
  return {
    url: checkUrl(location, maxUrlBytes),
    start: startOf(fraction === undefined ? undefined : plistNumber(PLAY_KEYS.startFraction, fraction), seconds === undefined ? undefined : plistNumber(PLAY_KEYS.startSeconds, seconds)),
    startPaused: rateValue === 0,
    ...optionalSession(plist),
  };
}

/** The session id a plist body carries under the Session-ID header's name (any dialect), if any. */
function optionalSession(plist: PlistDict): { sessionId?: string } {
  const sessionId = readMakerHeader({ get: (name) => stringEntry(plist, name) }, 'Session-ID');
  return sessionId === undefined ? {} : { sessionId };
}

function stringEntry(plist: PlistDict, name: string): string | undefined {
  const value = getEntry(plist, name);
  return typeof value === 'string' ? value : undefined;
}

function startOf(fraction: number | undefined, seconds: number | undefined): StartPosition {
  if (fraction !== undefined && !(fraction >= 0 && fraction <= 1)) {
    throw new VideoRequestError(`${PLAY_KEYS.startFraction} ${fraction} is not a fraction from 0 to 1 (spec 4.2; seconds go in ${PLAY_KEYS.startSeconds})`);
  }
  if (seconds !== undefined && !(seconds >= 0)) throw new VideoRequestError(`${PLAY_KEYS.startSeconds} ${seconds} is not a number of seconds from 0`);
  if (seconds !== undefined) return { seconds };
  return { fraction: fraction ?? 0 };
}

/** Only http and https: the player fetches the URL, and other schemes reach the device's own files. */
function checkUrl(text: string, maxUrlBytes: number): string {
  const url = text.trim();
  const bytes = utf8Encode(url).length;
  if (bytes > maxUrlBytes) throw new VideoRequestError(`${PLAY_KEYS.location} is ${bytes} bytes; this receiver takes up to ${maxUrlBytes} (limits.maxVideoUrlBytes)`);
  // Spaces and control characters cannot be in a URL: a sign of a mangled body.
  if (/[\u0000-\u0020\u007f]/.test(url)) throw new VideoRequestError(`${PLAY_KEYS.location} ${quote(url)} holds a space or a control character`);
  if (!/^https?:\/\/[^/?#]+/i.test(url)) throw new VideoRequestError(`${PLAY_KEYS.location} ${quote(url)} is not an http or https URL`);
  return url;
}

/** A decimal number as senders write them in text (`0.174051`, `12`, `1e-3`): not '', hex or `Infinity`. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function numberText(name: string, text: string): number {
  if (!DECIMAL.test(text.trim())) throw new VideoRequestError(`${name} ${quote(text)} is not a number`);
  return Number(text.trim());
}

function plistNumber(name: string, value: PlistValue): number {
  if (typeof value === 'number') return value;
  if (value instanceof PlistReal) return value.value;
  if (typeof value === 'bigint') return Number(value);
  throw new VideoRequestError(`${name} is ${describeValue(value)}, not a number`);
}

/**
 * A number from a query (`/scrub?position=12.5`, `/rate?value=1.000000`). Throws
 * VideoRequestError when it is missing or not a finite decimal.
 */
export function queryNumber(query: ReadonlyMap<string, string>, name: string): number {
  const text = query.get(name);
  if (text === undefined) throw new VideoRequestError(`no ${name}= in the query`);
  return numberText(name, text);
}

/** kCMTimeFlags (CMTime.h): the time is valid; it is +infinity, -infinity, or indefinite. */
const CMTIME_VALID = 1;
const CMTIME_NOT_NUMERIC = 4 | 8 | 16;

/**
 * spec 4.2 PUT /setProperty?forwardEndTime (and reverseEndTime): a binary plist whose `value`
 * is a CMTime dictionary {epoch, flags, timescale, value}. Returns seconds, or undefined for a
 * time that clears the end (invalid, infinite or indefinite: AVFoundation's kCMTimeInvalid
 * means "no end time"). Throws VideoRequestError.
 */
export function readEndTime(body: Uint8Array): number | undefined {
  const plist = readPlistDict(body);
  const time = getEntry(plist, 'value');
  if (!isPlistDict(time)) throw new VideoRequestError(`value is ${describeValue(time)}, not a time dictionary {epoch, flags, timescale, value}`);
  const field = (name: string): number => {
    const entry = getEntry(time, name);
    if (entry === undefined) throw new VideoRequestError(`value has no ${name}`);
    const number = plistNumber(`value.${name}`, entry);
    if (!Number.isFinite(number)) throw new VideoRequestError(`value.${name} is ${number}`);
    return number;
  };
  const flags = field('flags');
  if ((flags & CMTIME_VALID) === 0 || (flags & CMTIME_NOT_NUMERIC) !== 0) return undefined;
  const timescale = field('timescale');
  if (!(timescale > 0)) throw new VideoRequestError(`value.timescale ${timescale} is not above 0`);
  const seconds = field('value') / timescale;
  if (!(seconds >= 0)) throw new VideoRequestError(`value is ${seconds} s, before the start`);
  return seconds;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

function describeValue(value: PlistValue | undefined): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'data';
  if (value instanceof Date) return 'a date';
  return isPlistDict(value) ? 'a dictionary' : `the number ${String(value)}`;
}
