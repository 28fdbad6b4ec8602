// `vendorplay-send mirror`: streams an H.264 file to a receiver as a mirroring sender does
// (spec 4.4, 4.5, 2.14): serves its clock by NTP on UDP 7010 (the one port receivers ask: the
// protocol has no field to name another), asks GET /stream.xml, sends
// POST /stream with the 2.13 plist, then codec data, the video packets at the file's frame rate
// with NTP timestamps from the session start, and a heartbeat every second.
//
// The TCP connection and the NTP socket share one local address (--bind, default the address
// the connection got), since the receiver sends its NTP requests to the address the stream came
// from: several senders on 127.0.0.2, 127.0.0.3... each have their own port 7010.

import dgram from 'node:dgram';
import net from 'node:net';
import { HEADER, MessageAssembler, writeRequest, type ResponseHead } from '../src/http';
import { lengthPrefixed, HEARTBEAT_INTERVAL_MS, PACKET_TYPE, writePacket } from '../src/mirror';
import { isNtpClientRequest, msToNtp, NTP_SENDER_PORT, ntpServerReply } from '../src/timing';
import { decodePlist, encodeBinaryPlist, isPlistDict } from '../src/plist';
import type { Dialect } from '../src/dialect';
import { readH264Clip } from './h264-file';
import { SendError, describeEndpoint, type Endpoint, type Message } from './wire';

interface MirrorOptions {
  readonly endpoint: Endpoint;
  readonly dialect: Dialect;
  readonly file: string;
  readonly framesPerSecond?: number;
  /** Local address for the connection and the NTP socket. */
  readonly bind?: string;
  /** Added to the served clock (ms), to try a receiver's clock recovery. */
  readonly clockOffsetMs: number;
  /** Keep sending heartbeats this long after the last frame before closing. */
  readonly holdMs: number;
  readonly userAgent: string;
  readonly say: (line: string) => void;
}

function connect(endpoint: Endpoint, localAddress: string | undefined): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: endpoint.host, port: endpoint.port, localAddress });
    socket.once('connect', () => {
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      reject(new SendError(`cannot connect to ${describeEndpoint(endpoint)}: ${error.code === 'ECONNREFUSED' ? 'connection refused (is the receiver mirroring, on this port?)' : error.message}`));
    });
  });
}

function bindNtp(address: string, port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(new SendError(`cannot serve NTP on ${address}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use (another sender on this address? use --bind 127.0.0.N)' : error.message}`)),
    );
    socket.bind({ port, address, exclusive: true }, () => resolve(socket));
  });
}

/** One response read from the connection (the answer to GET /stream.xml, or a refusal). */
function responses(socket: net.Socket): { next(method: string): Promise<Message<ResponseHead>> } {
  const assembler = new MessageAssembler('response', { maxBodyBytes: 1024 * 1024 });
  const ready: Message<ResponseHead>[] = [];
  let waiting: ((message: Message<ResponseHead> | Error) => void) | undefined;
  let failure: Error | undefined;
  const deliver = (item: Message<ResponseHead> | Error): void => {
    if (item instanceof Error) failure = item;
    else ready.push(item);
    if (!waiting) return;
    const resolve = waiting;
    waiting = undefined;
    resolve(item instanceof Error ? item : ready.shift()!);
  };
  socket.on('data', (data: Buffer) => {
    assembler.receive(new Uint8Array(data));
    for (let event = assembler.next(); event; event = assembler.next()) {
      if (event.type === 'message') deliver({ head: event.head, body: event.body });
      else if (event.type === 'error') deliver(new SendError(`unreadable answer from the receiver: ${event.error.reason}`));
    }
  });
  socket.on('close', () => deliver(new SendError('the receiver closed the connection')));
  socket.on('error', (error) => deliver(new SendError(`connection failed: ${error.message}`)));
  return {
    next(method) {
      assembler.expectResponseTo(method);
      const message = ready.shift();
      if (message) return Promise.resolve(message);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => (waiting = (item) => (item instanceof Error ? reject(item) : resolve(item))));
    },
  };
}

function refusal(response: Message<ResponseHead>): string {
  const text = new TextDecoder().decode(response.body.subarray(0, 500)).split('\n')[0].trim();
  return `${response.head.status} ${response.head.reason}${text ? `: ${text}` : ''}`;
}

/** Writes, and waits for the socket to drain when its queue is full (flow control). */
function write(socket: net.Socket, bytes: Uint8Array): Promise<void> {
  if (socket.destroyed || socket.writableEnded) return Promise.reject(new SendError('the receiver closed the mirroring connection'));
  if (socket.write(bytes)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      socket.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      socket.off('drain', onDrain);
      reject(new SendError('the receiver closed the mirroring connection'));
    };
    socket.once('drain', onDrain);
    socket.once('close', onClose);
  });
}

export async function sendMirror(options: MirrorOptions): Promise<void> {
  const { endpoint, dialect, say } = options;
  const clip = await readH264Clip(options.file, options.framesPerSecond);
  const where = describeEndpoint(endpoint);
  const socket = await connect(endpoint, options.bind);
  const localAddress = socket.localAddress ?? options.bind ?? '127.0.0.1';
  let ntp: dgram.Socket | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let closedByReceiver: string | undefined;
  // spec 4.5: the session's clock starts at the session start (set again just before POST /stream).
  let sessionStart = performance.now();
  try {
    ntp = await bindNtp(localAddress, NTP_SENDER_PORT);
    const sessionClock = () => performance.now() - sessionStart + options.clockOffsetMs;
    let ntpRequests = 0;
    ntp.on('message', (message, remote) => {
      const receivedAt = sessionClock();
      const request = new Uint8Array(message);
      if (!isNtpClientRequest(request)) return;
      ntpRequests++;
      ntp?.send(ntpServerReply(request, receivedAt, sessionClock()), remote.port, remote.address);
    });
    const answers = responses(socket);
    socket.write(writeRequest({ method: 'GET', target: '/stream.xml', protocol: 'HTTP', version: '1.1', headers: [[HEADER.userAgent, options.userAgent]] }));
    const capabilities = await answers.next('GET');
    if (capabilities.head.status !== 200) throw new SendError(`GET /stream.xml: the receiver answered ${refusal(capabilities)}`);
    const record = decodePlist(capabilities.body);
    if (isPlistDict(record)) say(`receiver screen ${String(record.width)}x${String(record.height)}, refresh ${Number(record.refreshRate).toFixed(4)} s, version ${String(record.version)}`);

    const body = encodeBinaryPlist({
      deviceID: 0x0200000000aan,
      sessionID: -(Math.floor(Math.random() * 2 ** 31) + 1),
      version: '130.16',
      latencyMs: 90,
      fpsInfo: [{ name: 'SubS' }, { name: 'B4En' }, { name: 'EnDp' }],
      timestampInfo: [{ name: 'SubSu' }, { name: 'BePxT' }, { name: 'AfPxT' }],
    });
    say(`mirroring ${options.file} to ${where}: ${clip.accessUnits.length} frames at ${clip.framesPerSecond.toFixed(3)} fps; NTP served on ${localAddress}:${NTP_SENDER_PORT}`);
    // A refusal is an HTTP answer; a session gets none (spec 4.4), so any answer means the end.
    const refused = answers.next('POST').then(
      (response) => (closedByReceiver = `POST /stream: the receiver answered ${refusal(response)}`),
      (error: Error) => (closedByReceiver = error.message),
    );
    void refused;
    sessionStart = performance.now();
    const post = writeRequest({
      method: 'POST',
      target: '/stream',
      protocol: 'HTTP',
      version: '1.1',
      headers: [
        [HEADER.userAgent, options.userAgent],
        [dialect.headers['Device-ID'], '0x0200000000aa'],
        [HEADER.contentType, dialect.mime.plistBinary],
      ],
      body,
    });
    await streamClip(post).catch(async (error: unknown) => {
      // A refusal's answer may still be on its way when the write fails: it says why, so wait for it a moment.
      if (!closedByReceiver) await new Promise((resolve) => setTimeout(resolve, 200));
      throw closedByReceiver ? new SendError(closedByReceiver) : error;
    });
    say(`sent ${clip.accessUnits.length} frames; ${ntpRequests} NTP requests answered`);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    if (!socket.destroyed) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        setTimeout(resolve, 2000).unref();
        socket.end();
      });
    }
    ntp?.close();
  }

  /** POST /stream, then the packets: codec data, the frames on time, heartbeats. */
  async function streamClip(post: Uint8Array): Promise<void> {
    await write(socket, post);
    await write(socket, writePacket(PACKET_TYPE.codecData, clip.avcC));
    heartbeat = setInterval(() => {
      if (!closedByReceiver) socket.write(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)));
    }, HEARTBEAT_INTERVAL_MS);
    const frameMs = 1000 / clip.framesPerSecond;
    for (let index = 0; index < clip.accessUnits.length; index++) {
      if (closedByReceiver) throw new SendError(closedByReceiver);
      // Each frame at its time from the session start: no drift from late timers.
      const due = sessionStart + index * frameMs;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const timestamp = msToNtp(index * frameMs + options.clockOffsetMs);
      await write(socket, writePacket(PACKET_TYPE.video, lengthPrefixed(clip.accessUnits[index], 4), timestamp.seconds, timestamp.fraction));
    }
    if (options.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, options.holdMs));
    if (closedByReceiver) throw new SendError(closedByReceiver);
  }
}
