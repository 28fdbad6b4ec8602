// What a sender asks for with RTSP SETUP and a binary-plist body, as current senders open a
// session: the first SETUP on a connection opens the *session* (the sender's facts, its timing
// protocol and port), a later one adds *streams* (`streams: [{type: 96, ...}]`). The spec shows
// none of it ("other audio requests: not shown"); the keys are those senders in the field send
// (pyatv, iOS), read here key by key with a clear refusal for each wrong type.

import { RequestError } from '../../errors';
import { decodeBinaryPlist, isPlistDict, PlistError, plistTypeName, type PlistDict, type PlistValue } from '../../plist';

/** A SETUP body that opens nothing; `status` is the answer's. */
export class SessionRequestError extends RequestError {
  override name = 'SessionRequestError';
  constructor(
    message: string,
    /** 400 malformed; 454 no session; 455 a request out of order; 501 asks for what is not served; 503 out of sockets. */
    override readonly status: 400 | 454 | 455 | 501 | 503,
    phrase?: string,
  ) {
    super(status, message, phrase);
  }
}

/** How the sender keeps time with the receiver (the session's `timingProtocol`). */
export type TimingProtocol = 'NTP' | 'PTP' | 'None';
const TIMING_PROTOCOLS: readonly TimingProtocol[] = ['NTP', 'PTP', 'None'];

/** What a sender says of itself when it opens a session. */
export interface SenderFacts {
  /** The sender's device id, `AA:BB:CC:DD:EE:FF` as senders write it. */
  readonly deviceId: string;
  readonly sessionUuid: string;
  readonly timingProtocol: TimingProtocol;
  /** The sender's timing port (UDP), with timingProtocol NTP. */
  readonly timingPort: number | undefined;
  readonly name: string | undefined;
  readonly model: string | undefined;
  readonly macAddress: string | undefined;
  readonly osName: string | undefined;
  readonly osVersion: string | undefined;
  readonly sourceVersion: string | undefined;
  readonly groupUuid: string | undefined;
  readonly groupContainsGroupLeader: boolean;
  /** The sender only wants to control (no media on this session). */
  readonly isRemoteControlOnly: boolean;
}

/** The session keys read, their types, and whether a session needs them: one table. */
const SESSION_KEYS = {
  deviceID: { type: 'string', required: true },
  sessionUUID: { type: 'string', required: true },
  timingProtocol: { type: 'string', required: true },
  timingPort: { type: 'integer', required: false },
  name: { type: 'string', required: false },
  model: { type: 'string', required: false },
  macAddress: { type: 'string', required: false },
  osName: { type: 'string', required: false },
  osVersion: { type: 'string', required: false },
  sourceVersion: { type: 'string', required: false },
  groupUUID: { type: 'string', required: false },
  groupContainsGroupLeader: { type: 'boolean', required: false },
  isRemoteControlOnly: { type: 'boolean', required: false },
} as const;

/** Keys that ask for FairPlay-encrypted media, a scheme the spec does not show. */
const FAIRPLAY_KEYS = ['ekey', 'eiv'] as const;

/** A string a sender sends about itself is a name or an id: longer is not a sender's. */
const MAX_FACT_CHARACTERS = 256;

/**
 * The stream types of a SETUP's `streams` (not in the spec; as senders in the field number them),
 * named for log lines and refusals.
 */
export const STREAM_TYPES: Readonly<Record<number, string>> = {
  96: 'realtime audio',
  103: 'buffered audio',
  110: 'screen mirroring',
  120: 'screen mirroring (the second form)',
  130: 'remote control data channel',
};

/** One stream a SETUP asks for: its type, and the rest of its dictionary as sent. */
export interface StreamAsk {
  readonly type: number;
  readonly fields: PlistDict;
}

/** Streams in one SETUP: a sender asks for one or two; more is not a sender's. */
const MAX_STREAMS = 8;

export type SetupRequest = { readonly kind: 'session'; readonly sender: SenderFacts } | { readonly kind: 'streams'; readonly streams: readonly StreamAsk[] };

function integerOf(value: PlistValue): number | undefined {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return undefined;
}

/** Reads a SETUP body: a session's opening or a request for streams. */
export function parseSetup(body: Uint8Array): SetupRequest {
  if (body.length === 0) throw new SessionRequestError('SETUP without a body: a session opens with a binary property list (a classic audio SETUP with a Transport header is not served)', 400);
  let plist: PlistValue;
  try {
    plist = decodeBinaryPlist(body);
  } catch (error) {
    throw new SessionRequestError(`SETUP: the body is not a binary property list (${error instanceof PlistError ? error.message : String(error)})`, 400);
  }
  if (!isPlistDict(plist)) throw new SessionRequestError(`SETUP: the body is a ${plistTypeName(plist)}, not a dictionary`, 400);
  const fairPlay = FAIRPLAY_KEYS.filter((key) => plist[key] !== undefined);
  if (fairPlay.length > 0) {
    throw new SessionRequestError(`SETUP: ${fairPlay.join(' and ')} present: the media would be encrypted with a scheme the spec does not show, which this receiver cannot decrypt`, 501);
  }
  if (plist.streams !== undefined) return { kind: 'streams', streams: readStreams(plist.streams) };
  return { kind: 'session', sender: readSender(plist) };
}

function readSender(plist: PlistDict): SenderFacts {
  const missing = Object.entries(SESSION_KEYS)
    .filter(([key, spec]) => spec.required && plist[key] === undefined)
    .map(([key]) => key);
  if (missing.length > 0) throw new SessionRequestError(`SETUP: required key${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing`, 400);
  for (const [key, spec] of Object.entries(SESSION_KEYS)) {
    const value = plist[key];
    if (value === undefined) continue;
    const ok = spec.type === 'integer' ? integerOf(value) !== undefined : typeof value === spec.type;
    if (!ok) throw new SessionRequestError(`SETUP: ${key} is a ${plistTypeName(value)}, not ${spec.type === 'integer' ? 'an integer' : `a ${spec.type}`}`, 400);
    if (typeof value === 'string' && (value.length === 0 || value.length > MAX_FACT_CHARACTERS)) {
      throw new SessionRequestError(`SETUP: ${key} is ${value.length} characters (1 to ${MAX_FACT_CHARACTERS})`, 400);
    }
  }
  const timingProtocol = plist.timingProtocol as string;
  if (!(TIMING_PROTOCOLS as readonly string[]).includes(timingProtocol)) {
    throw new SessionRequestError(`SETUP: timingProtocol ${JSON.stringify(timingProtocol)} is not one of ${TIMING_PROTOCOLS.join(', ')}`, 400);
  }
  const timingPort = plist.timingPort === undefined ? undefined : integerOf(plist.timingPort);
  if (timingPort !== undefined && (timingPort < 1 || timingPort > 65535)) throw new SessionRequestError(`SETUP: timingPort ${timingPort} is not a UDP port (1 to 65535)`, 400);
  if (timingProtocol === 'NTP' && timingPort === undefined) throw new SessionRequestError('SETUP: timingProtocol NTP without a timingPort to ask the time of', 400);
  const text = (key: keyof typeof SESSION_KEYS) => plist[key] as string | undefined;
  return {
    deviceId: text('deviceID')!,
    sessionUuid: text('sessionUUID')!,
    timingProtocol: timingProtocol as TimingProtocol,
    timingPort,
    name: text('name'),
    model: text('model'),
    macAddress: text('macAddress'),
    osName: text('osName'),
    osVersion: text('osVersion'),
    sourceVersion: text('sourceVersion'),
    groupUuid: text('groupUUID'),
    groupContainsGroupLeader: plist.groupContainsGroupLeader === true,
    isRemoteControlOnly: plist.isRemoteControlOnly === true,
  };
}

function readStreams(value: PlistValue): StreamAsk[] {
  if (!Array.isArray(value)) throw new SessionRequestError(`SETUP: streams is a ${plistTypeName(value)}, not an array`, 400);
  if (value.length === 0) throw new SessionRequestError('SETUP: streams is empty', 400);
  if (value.length > MAX_STREAMS) throw new SessionRequestError(`SETUP: ${value.length} streams (at most ${MAX_STREAMS})`, 400);
  return value.map((entry, index) => {
    if (!isPlistDict(entry)) throw new SessionRequestError(`SETUP: streams[${index}] is a ${plistTypeName(entry)}, not a dictionary`, 400);
    const type = entry.type === undefined ? undefined : integerOf(entry.type);
    if (type === undefined) throw new SessionRequestError(`SETUP: streams[${index}] has no integer type`, 400);
    return { type, fields: entry };
  });
}

/** A stream type in words: `type 96 (realtime audio)`, or `type 42 (unknown)`. */
export function describeStreamType(type: number): string {
  return `type ${type} (${STREAM_TYPES[type] ?? 'unknown'})`;
}
