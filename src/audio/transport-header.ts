// The Transport header of a classic SETUP (RFC 2326 12.39) as senders send it (pyatv 0.14.5,
// iTunes): `RTP/AVP/UDP;unicast;interleaved=0-1;mode=record;control_port=N;timing_port=M`, and
// the receiver's answer `RTP/AVP/UDP;unicast;mode=record;server_port=A;control_port=B;timing_port=C`.
// `interleaved=0-1` rides along with UDP from every sender and means nothing there; a transport
// over TCP (RTP/AVP/TCP, RTP interleaved in the RTSP connection) is not served.

/** RFC 2326 11.3.11: 461 Unsupported Transport. */
export const UNSUPPORTED_TRANSPORT_STATUS = 461;

/** The Transport asked is not one this receiver serves; the message says which part. */
export class TransportHeaderError extends Error {
  override name = 'TransportHeaderError';
  readonly status = UNSUPPORTED_TRANSPORT_STATUS;
}

/** The transport specs taken (RFC 2326 12.39: `RTP/AVP` is UDP by default). */
const UDP_PROTOCOLS = ['RTP/AVP', 'RTP/AVP/UDP'] as const;
const TCP_PROTOCOL = 'RTP/AVP/TCP';

/** The parameter names, one row each (read and written from here). */
const PARAMETER = {
  unicast: 'unicast',
  multicast: 'multicast',
  mode: 'mode',
  record: 'record',
  controlPort: 'control_port',
  timingPort: 'timing_port',
  serverPort: 'server_port',
} as const;

/** The sender's side of a classic audio stream, as its SETUP says. */
export interface SenderTransport {
  /** Where retransmit requests go (UDP); senders without one get none. */
  readonly controlPort?: number;
  /** Where timing requests go (UDP), the sender's clock. */
  readonly timingPort?: number;
}

function port(value: string, name: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535) throw new TransportHeaderError(`Transport ${name}=${value} is not a port (1 to 65535)`);
  return Number(value);
}

/** Reads a client's Transport header; throws TransportHeaderError (461) naming what is not served. */
export function readSenderTransport(header: string): SenderTransport {
  // RFC 2326 12.39: a list of alternatives; senders send one. Take the first UDP one.
  const alternatives = header.split(',').map((alternative) => alternative.trim());
  let tcpSeen = false;
  for (const alternative of alternatives) {
    const parts = alternative.split(';').map((part) => part.trim());
    const protocol = parts[0].toUpperCase();
    if (protocol === TCP_PROTOCOL) {
      tcpSeen = true;
      continue;
    }
    if (!(UDP_PROTOCOLS as readonly string[]).includes(protocol)) continue;
    let controlPort: number | undefined;
    let timingPort: number | undefined;
    for (const part of parts.slice(1)) {
      const equals = part.indexOf('=');
      const name = (equals < 0 ? part : part.slice(0, equals)).toLowerCase();
      const value = equals < 0 ? '' : part.slice(equals + 1);
      if (name === PARAMETER.multicast) throw new TransportHeaderError('Transport asks for multicast: this receiver serves unicast');
      if (name === PARAMETER.mode && value.replace(/"/g, '').toLowerCase() !== PARAMETER.record) throw new TransportHeaderError(`Transport mode=${value}: this receiver takes streams (mode=record)`);
      if (name === PARAMETER.controlPort) controlPort = port(value, name);
      if (name === PARAMETER.timingPort) timingPort = port(value, name);
    }
    return { ...(controlPort !== undefined ? { controlPort } : {}), ...(timingPort !== undefined ? { timingPort } : {}) };
  }
  if (tcpSeen) throw new TransportHeaderError('Transport RTP/AVP/TCP (RTP interleaved in the RTSP connection): this receiver takes audio over UDP');
  throw new TransportHeaderError(`Transport '${header.slice(0, 80)}' names no RTP/AVP/UDP transport`);
}

/** The receiver's ports for the answer to SETUP. */
export interface ReceiverTransport {
  readonly serverPort: number;
  readonly controlPort: number;
  readonly timingPort: number;
}

/** The answer's Transport header (what pyatv reads: server_port, control_port, timing_port). */
export function writeReceiverTransport(ports: ReceiverTransport): string {
  return [
    'RTP/AVP/UDP',
    PARAMETER.unicast,
    `${PARAMETER.mode}=${PARAMETER.record}`,
    `${PARAMETER.serverPort}=${ports.serverPort}`,
    `${PARAMETER.controlPort}=${ports.controlPort}`,
    `${PARAMETER.timingPort}=${ports.timingPort}`,
  ].join(';');
}

/** The sender's request header (the sender tool): pyatv's exact shape. */
export function writeSenderTransport(ports: { readonly controlPort: number; readonly timingPort: number }): string {
  return `RTP/AVP/UDP;unicast;interleaved=0-1;${PARAMETER.mode}=${PARAMETER.record};${PARAMETER.controlPort}=${ports.controlPort};${PARAMETER.timingPort}=${ports.timingPort}`;
}

/** Reads the answer's Transport (the sender tool); throws TransportHeaderError when a port is missing. */
export function readReceiverTransport(header: string): ReceiverTransport {
  const values = new Map<string, string>();
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals > 0) values.set(part.slice(0, equals).trim().toLowerCase(), part.slice(equals + 1).trim());
  }
  const need = (name: string): number => {
    const value = values.get(name);
    if (value === undefined) throw new TransportHeaderError(`Transport answer without ${name}`);
    return port(value, name);
  };
  return { serverPort: need(PARAMETER.serverPort), controlPort: need(PARAMETER.controlPort), timingPort: need(PARAMETER.timingPort) };
}
