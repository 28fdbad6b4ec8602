// A lossy path between a classic audio sender and the receiver, on loopback, for tests: the
// sender's RTSP connection goes through this relay, which rewrites the SETUP answer's
// `server_port` to its own UDP port; the RTP audio the sender sends there is passed on to the
// receiver's data port, each packet dropped with probability `loss` (seeded, so a run is
// repeatable). Control traffic (retransmit requests, resent packets, timing) goes directly
// between the two, as a network that loses audio packets but not every packet would let it:
// what is lost must come back through the retransmissions. (No netem: the CI kernel lacks it.)

import dgram from 'node:dgram';
import net from 'node:net';

export interface LossyRelay {
  /** The TCP port a sender connects to instead of the receiver's. */
  readonly port: number;
  /** Audio packets passed on, and dropped. */
  readonly counts: () => { readonly passed: number; readonly dropped: number };
  close(): Promise<void>;
}

/** xorshift32: a small seeded generator, so the packets lost are the same on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
}

const HEAD_END = '\r\n\r\n';

/**
 * Passes RTSP responses on whole, with `server_port=N` in a Transport header made the relay's
 * UDP port (and N remembered as where audio goes).
 */
function responseRewriter(udpPort: number, onServerPort: (port: number) => void): (chunk: Buffer) => Buffer {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) break;
      const head = pending.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const total = headEnd + HEAD_END.length + length;
      if (pending.length < total) break;
      const rewritten = head.replace(/(\r\ntransport:[^\r]*?server_port=)(\d+)/i, (_, before: string, port: string) => {
        onServerPort(Number(port));
        return `${before}${udpPort}`;
      });
      out.push(Buffer.from(rewritten, 'latin1'), pending.subarray(headEnd, total));
      pending = pending.subarray(total);
    }
    return Buffer.concat(out);
  };
}

export async function startLossyRelay(receiverPort: number, options: { readonly loss: number; readonly seed?: number; readonly host?: string }): Promise<LossyRelay> {
  const host = options.host ?? '127.0.0.1';
  const random = generator(options.seed ?? 0x5eed);
  let passed = 0;
  let dropped = 0;
  let audioPort: number | undefined;
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message) => {
    if (audioPort === undefined) return;
    if (random() < options.loss) {
      dropped++;
      return;
    }
    passed++;
    udp.send(message, audioPort, host);
  });
  await new Promise<void>((resolve) => udp.bind(0, host, resolve));
  const udpPort = udp.address().port;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sender) => {
    const receiver = net.connect(receiverPort, host);
    sockets.add(sender).add(receiver);
    const rewrite = responseRewriter(udpPort, (port) => (audioPort = port));
    sender.on('data', (chunk) => receiver.write(chunk));
    receiver.on('data', (chunk) => {
      const whole = rewrite(chunk);
      if (whole.length > 0) sender.write(whole);
    });
    const end = () => {
      sender.destroy();
      receiver.destroy();
    };
    sender.on('close', end).on('error', end);
    receiver.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    counts: () => ({ passed, dropped }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}
