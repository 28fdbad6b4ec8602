// The RTP-Info header of RECORD and FLUSH (RFC 2326 12.33, as senders use it): `seq=N;rtptime=M`.
// On RECORD it names the first packet of the stream; on FLUSH the first packet after the flush
// (what is buffered before it is dropped). pyatv sends both fields on both; iTunes sends a FLUSH
// without the header at all (flush everything).

/** The header is not `seq=N;rtptime=M`; the message says which part. */
export class RtpInfoError extends Error {
  override name = 'RtpInfoError';
}

export const RTP_INFO_HEADER = 'RTP-Info';

export interface RtpInfo {
  /** Sequence number (16-bit) of the first packet meant. */
  readonly seq?: number;
  /** RTP time (32-bit) of that packet's first frame. */
  readonly rtptime?: number;
}

function field(value: string, name: string, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > max) throw new RtpInfoError(`RTP-Info ${name}=${value} is not a number from 0 to ${max}`);
  return Number(value);
}

/** Reads the header's value; other parameters (url=) are passed over. Throws RtpInfoError. */
export function readRtpInfo(value: string): RtpInfo {
  let seq: number | undefined;
  let rtptime: number | undefined;
  for (const part of value.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    const text = part.slice(equals + 1).trim();
    if (name === 'seq') seq = field(text, name, 0xffff);
    else if (name === 'rtptime') rtptime = field(text, name, 0xffffffff);
  }
  if (seq === undefined && rtptime === undefined) throw new RtpInfoError(`RTP-Info '${value.slice(0, 80)}' names neither seq nor rtptime`);
  return { ...(seq !== undefined ? { seq } : {}), ...(rtptime !== undefined ? { rtptime } : {}) };
}

/** pyatv's: `seq=N;rtptime=M` (the sender tool's RECORD and FLUSH). */
export function writeRtpInfo(info: { readonly seq: number; readonly rtptime: number }): string {
  return `seq=${info.seq & 0xffff};rtptime=${info.rtptime >>> 0}`;
}
