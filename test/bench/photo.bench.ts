// PUT /photo latency: from the last byte of a 4 MB picture sent to its hand-off to the display,
// on the Node host (the Receiver in this process on a real loopback socket, hosts/node/tcp.ts,
// with a Display that notes the time), against a bare node:http server receiving the same body
// (last byte sent to the request's 'end' event). One client, one keep-alive connection per
// server, rounds alternating between them; medians reported, and their ratio (receiver /
// node-http: above 1 means the receiver takes longer than Node only reading the body).

import http from 'node:http';
import net from 'node:net';
import { latin1Encode } from '../../src/bytes';
import type { Display } from '../../src/platform';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { nodeClock, nodeRandom } from '../../hosts/node/ports';
import { listen } from '../../hosts/node/tcp';
import { within } from '../e2e/receiver-process';
import { sampleJpeg } from '../support/jpeg-samples';
import { MemoryStore } from '../support/memory-ports';
import { report, round } from './measure';

export interface PhotoLoad {
  /** Picture size in bytes. */
  bytes: number;
  /** Measured rounds per server (odd, so there is a median). */
  rounds: number;
  warmUpRounds: number;
}

export const DEFAULT_PHOTO_LOAD: PhotoLoad = { bytes: 4 * 1024 * 1024, rounds: 31, warmUpRounds: 5 };

/** Where a request ends on the server: the receiver's display hand-off or Node's 'end' event. */
type Arrival = () => Promise<number>;

interface Target {
  readonly name: 'receiver' | 'node-http';
  readonly port: number;
  /** Resolves with performance.now() of the next arrival. */
  readonly nextArrival: Arrival;
  close(): Promise<void>;
}

/** Resolvers of a "next arrival" promise, fed by `arrived()`. */
function arrivals(): { next: Arrival; arrived: () => void } {
  let waiting: ((at: number) => void) | undefined;
  let early: number | undefined;
  return {
    next: () =>
      new Promise<number>((resolve) => {
        if (early !== undefined) {
          resolve(early);
          early = undefined;
        } else waiting = resolve;
      }),
    arrived: () => {
      const at = performance.now();
      const resolve = waiting;
      waiting = undefined;
      if (resolve) resolve(at);
      else early = at;
    },
  };
}

async function startReceiver(load: PhotoLoad): Promise<Target> {
  const { next, arrived } = arrivals();
  const display: Display = { showPhoto: () => arrived(), clear() {}, showStatus() {}, showPin() {}, hidePin() {} };
  const receiver = new Receiver(makeConfig({ name: 'Bench', profile: 'desktop', limits: { maxPhotoBytes: load.bytes + 1024 } }), {
    clock: nodeClock,
    random: nodeRandom,
    store: new MemoryStore(),
    log: () => {},
    display,
  });
  const server = await listen(0, '127.0.0.1', (connection) => receiver.accept(connection));
  return {
    name: 'receiver',
    port: (server.address() as net.AddressInfo).port,
    nextArrival: next,
    close: async () => {
      receiver.stop();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function startNodeHttp(): Promise<Target> {
  const { next, arrived } = arrivals();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrived();
      response.writeHead(200, { 'Content-Length': 0 });
      response.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name: 'node-http',
    port: (server.address() as net.AddressInfo).port,
    nextArrival: next,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One keep-alive connection that sends a whole PUT /photo and waits for its 200. */
class PhotoClient {
  private received = '';
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => {
      this.received += data.toString('latin1');
      this.wake?.();
    });
  }

  static connect(port: number): Promise<PhotoClient> {
    return within(
      3000,
      `connect to 127.0.0.1:${port}`,
      new Promise((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(new PhotoClient(socket)));
        socket.once('error', reject);
      }),
    );
  }

  /**
   * Sends `request` and returns when its last byte was handed to the kernel and when the
   * response's head arrived.
   */
  async send(request: Uint8Array): Promise<{ lastByteAt: number }> {
    const lastByteAt = await new Promise<number>((resolve, reject) => {
      this.socket.write(request, (error) => (error ? reject(error) : resolve(performance.now())));
    });
    await within(
      10_000,
      'the response to PUT /photo',
      new Promise<void>((resolve, reject) => {
        const check = () => {
          const end = this.received.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = this.received.slice(0, end);
          this.received = this.received.slice(end + 4);
          this.wake = undefined;
          if (!head.startsWith('HTTP/1.1 200 ')) reject(new Error(`unexpected response: ${head.split('\r\n')[0]}`));
          else resolve();
        };
        this.wake = check;
        check();
      }),
    );
    return { lastByteAt };
  }

  close(): void {
    this.socket.destroy();
  }
}

function photoRequest(jpeg: Uint8Array): Uint8Array {
  const head = latin1Encode(
    'PUT /photo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Vendor-Session-ID: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d\r\n' +
      `X-Vendor-Transition: Dissolve\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`,
  );
  const request = new Uint8Array(head.length + jpeg.length);
  request.set(head);
  request.set(jpeg, head.length);
  return request;
}

export async function runPhotoBench(load: PhotoLoad = DEFAULT_PHOTO_LOAD): Promise<void> {
  const request = photoRequest(sampleJpeg(load.bytes, 11));
  const targets = [await startReceiver(load), await startNodeHttp()];
  const clients = await Promise.all(targets.map((target) => PhotoClient.connect(target.port)));
  const samples: Record<Target['name'], number[]> = { receiver: [], 'node-http': [] };
  try {
    for (let round = 0; round < load.warmUpRounds + load.rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const arrival = targets[i].nextArrival();
        const { lastByteAt } = await clients[i].send(request);
        const arrivedAt = await arrival;
        if (round >= load.warmUpRounds) samples[targets[i].name].push(arrivedAt - lastByteAt);
      }
    }
  } finally {
    for (const client of clients) client.close();
    for (const target of targets) await target.close();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const common = { bytes: load.bytes, rounds: load.rounds };
  for (const name of ['receiver', 'node-http'] as const) {
    const sorted = [...samples[name]].sort((a, b) => a - b);
    report({
      bench: 'photo.put-last-byte-to-handoff',
      server: name,
      medianMs: round(median(sorted), 3),
      minMs: round(sorted[0], 3),
      maxMs: round(sorted[sorted.length - 1], 3),
      ...common,
    });
  }
  report({
    bench: 'photo.put-last-byte-to-handoff',
    ratio: round(median(samples.receiver) / median(samples['node-http'])),
    of: 'receiver/node-http (latency: above 1 means the receiver takes longer)',
    ...common,
  });
}
