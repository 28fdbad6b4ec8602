// The mirroring listener's two records: the capability record of GET /stream.xml (spec 2.12),
// made from the display's geometry, and the stream request of POST /stream (spec 2.13), checked
// key by key before the connection turns into a packet stream.

import { RequestError } from '../errors';
import { decodeBinaryPlist, isPlistDict, PlistError, plistTypeName, real, type PlistDict, type PlistValue } from '../plist';
import type { ScreenGeometry } from '../platform';

/** spec 2.12: the record GET /stream.xml answers, from the host's real display. */
export function streamCapabilities(geometry: ScreenGeometry, version: string): PlistDict {
  return {
    height: geometry.height,
    width: geometry.width,
    overscanned: geometry.overscanned,
    refreshRate: real(geometry.refreshRate),
    version,
  };
}

/** A POST /stream body that cannot start a session; `status` is the answer's. */
export class StreamRequestError extends RequestError {
  override name = 'StreamRequestError';
  constructor(
    message: string,
    /** 400 for a malformed request; 501 for encrypted video (a DRM scheme the spec does not show). */
    override readonly status: 400 | 501,
  ) {
    super(status, message);
  }
}

/** spec 4.4: senders connect to mirroring's own fixed port, not the advertised one. */
export const MIRROR_PORT = 7100;

/** spec 2.13, with the keys a session needs. */
export interface StreamRequest {
  /** The sender's MAC address as an integer. */
  readonly deviceId: bigint;
  readonly sessionId: bigint;
  readonly version: string;
  readonly latencyMs: number;
  readonly fpsInfo: readonly string[];
  readonly timestampInfo: readonly string[];
}

type KeyType = 'integer' | 'string' | 'array of named dictionaries';

/** spec 2.13's required keys and their types: one table, read by the check and by the sender tool's tests. */
export const STREAM_REQUEST_REQUIRED: readonly (readonly [string, KeyType])[] = [
  ['deviceID', 'integer'],
  ['sessionID', 'integer'],
  ['version', 'string'],
  ['latencyMs', 'integer'],
  ['fpsInfo', 'array of named dictionaries'],
  ['timestampInfo', 'array of named dictionaries'],
];

/** spec 2.13: present, they say the video is AES-encrypted under a key only the DRM scheme opens. */
const STREAM_REQUEST_DRM_KEYS = ['param1', 'param2'] as const;

function names(value: PlistValue, key: string): string[] {
  if (!Array.isArray(value)) throw new StreamRequestError(`POST /stream: ${key} is a ${plistTypeName(value)}, not an array`, 400);
  return value.map((entry, index) => {
    if (!isPlistDict(entry) || typeof entry.name !== 'string') throw new StreamRequestError(`POST /stream: ${key}[${index}] is not a dictionary with a name string`, 400);
    return entry.name;
  });
}

function integer(value: PlistValue): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return undefined;
}

/** Reads and checks a POST /stream body (a binary plist, spec 2.13). */
export function parseStreamRequest(body: Uint8Array): StreamRequest {
  let plist: PlistValue;
  try {
    plist = decodeBinaryPlist(body);
  } catch (error) {
    throw new StreamRequestError(`POST /stream: the body is not a binary property list (${error instanceof PlistError ? error.message : String(error)})`, 400);
  }
  if (!isPlistDict(plist)) throw new StreamRequestError(`POST /stream: the body is a ${plistTypeName(plist)}, not a dictionary`, 400);
  const drm = STREAM_REQUEST_DRM_KEYS.filter((key) => plist[key] !== undefined);
  if (drm.length > 0) {
    throw new StreamRequestError(`POST /stream: ${drm.join(' and ')} present: the video is encrypted with a DRM scheme the spec does not show, which this receiver cannot decrypt`, 501);
  }
  const missing = STREAM_REQUEST_REQUIRED.filter(([key]) => plist[key] === undefined).map(([key]) => key);
  if (missing.length > 0) throw new StreamRequestError(`POST /stream: required key${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing`, 400);
  for (const [key, type] of STREAM_REQUEST_REQUIRED) {
    const value = plist[key];
    const ok = type === 'integer' ? integer(value) !== undefined : type === 'string' ? typeof value === 'string' : true;
    if (!ok) throw new StreamRequestError(`POST /stream: ${key} is a ${plistTypeName(value)}, not ${type === 'integer' ? 'an integer' : `a ${type}`}`, 400);
  }
  const latency = integer(plist.latencyMs)!;
  if (latency < 0n || latency > 60_000n) throw new StreamRequestError(`POST /stream: latencyMs ${latency} is not 0 to 60000`, 400);
  return {
    deviceId: integer(plist.deviceID)!,
    sessionId: integer(plist.sessionID)!,
    version: plist.version as string,
    latencyMs: Number(latency),
    fpsInfo: names(plist.fpsInfo, 'fpsInfo'),
    timestampInfo: names(plist.timestampInfo, 'timestampInfo'),
  };
}
