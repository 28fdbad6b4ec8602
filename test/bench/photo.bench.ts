// PUT /photo latency: from the first byte of a picture handed to the socket to its hand-off to
// the display, at 1, 4 and 16 MB, on the Node host (the Receiver in this process on a real
// loopback socket, hosts/node/tcp.ts, with a Display that notes the time), against a bare
// node:http server receiving the same request and doing the same work with it: joining the
// body's chunks into one buffer and handing that on (the receiver builds one body too; it also
// checks the JPEG's structure, src/receiver/jpeg.ts, which Node's side does not). One client,
// one keep-alive connection per server, rounds alternating between them (and which goes first);
// min/median/max per server and the ratio (receiver / node-http: above 1 means the receiver
// takes longer). Every round checks that the bytes handed on are the picture sent.

import http from 'node:http';
import net from 'node:net';
import { equal, latin1Encode } from '../../src/bytes';
import type { Display } from '../../src/platform';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { nodeClock, nodeRandom } from '../../hosts/node/ports';
import { listen } from '../../hosts/node/tcp';
import { within } from '../e2e/receiver-process';
import { sampleJpeg } from '../support/jpeg-samples';
import { MemoryStore } from '../support/memory-ports';
import { ratioFigure, report, spreadFields, verify } from './measure';

export interface PhotoLoad {
  /** Picture sizes in bytes, each with its measured rounds per server (odd, so there is a median). */
  sizes: { bytes: number; rounds: number }[];
  warmUpRounds: number;
}

// A 1 MB round takes about 1 ms, in which a neighbour on the machine moves a round by up to 3x:
// with 61 rounds the ratio of the medians still moved from 0.77 to 1.25 between runs of the same
// code. The small sizes are cheap, so they get more rounds: 201 at 1 MB, 101 at 4 MB; 16 MB rounds
// take ~20 ms, and 61 of them hold. (A full garbage collection before every round, tried to make
// rounds independent, made it worse: each 16 MB round then faulted its pages in afresh, and the
// two servers allocate their bodies differently.)
export const DEFAULT_PHOTO_LOAD: PhotoLoad = {
  sizes: [
    { bytes: 1 * 1024 * 1024, rounds: 201 },
    { bytes: 4 * 1024 * 1024, rounds: 101 },
    { bytes: 16 * 1024 * 1024, rounds: 61 },
  ],
  warmUpRounds: 10,
};

/** When and what a server handed on: the display's picture, or Node's joined body. */
interface Handed {
  at: number;
  bytes: Uint8Array;
}

/** Where a request ends on the server: the receiver's display hand-off or Node's joined body. */
type Arrival = () => Promise<Handed>;

interface Target {
  readonly name: 'receiver' | 'node-http';
  readonly port: number;
  /** Resolves with performance.now() of the next arrival. */
  readonly nextArrival: Arrival;
  close(): Promise<void>;
}

/** Resolvers of a "next arrival" promise, fed by `arrived()`. */
function arrivals(): { next: Arrival; arrived: (bytes: Uint8Array) => void } {
  let waiting: ((handed: Handed) => void) | undefined;
  let early: Handed | undefined;
  return {
    next: () =>
      new Promise<Handed>((resolve) => {
        if (early !== undefined) {
          resolve(early);
          early = undefined;
        } else waiting = resolve;
      }),
    arrived: (bytes) => {
      const handed = { at: performance.now(), bytes };
      const resolve = waiting;
      waiting = undefined;
      if (resolve) resolve(handed);
      else early = handed;
    },
  };
}

function largest(load: PhotoLoad): number {
  return Math.max(...load.sizes.map((size) => size.bytes));
}

async function startReceiver(load: PhotoLoad): Promise<Target> {
  const { next, arrived } = arrivals();
  const display: Display = { showPhoto: (jpeg) => arrived(jpeg), clear() {}, showStatus() {}, showPin() {}, hidePin() {} };
  const receiver = new Receiver(makeConfig({ name: 'Bench', profile: 'desktop', limits: { maxPhotoBytes: largest(load) + 1024, photoCacheBytes: 4 * largest(load) } }), {
    clock: nodeClock,
    random: nodeRandom,
    store: new MemoryStore(),
    // Lines are dropped as at the default log level (info), where a line nobody sees is not built.
    log: Object.assign(() => {}, { level: 'info' as const }),
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
      // The same work as the receiver's: one body, handed on.
      arrived(Buffer.concat(chunks));
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
   * Sends `request` in one write and returns when its first byte was handed to the socket,
   * once the response's head arrived.
   */
  async send(request: Uint8Array): Promise<{ firstByteAt: number }> {
    const firstByteAt = performance.now();
    await new Promise<void>((resolve, reject) => {
      this.socket.write(request, (error) => (error ? reject(error) : resolve()));
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
    return { firstByteAt };
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
  const targets = [await startReceiver(load), await startNodeHttp()];
  const clients = await Promise.all(targets.map((target) => PhotoClient.connect(target.port)));
  try {
    for (const { bytes, rounds } of load.sizes) {
      const jpeg = sampleJpeg(bytes, 11);
      const request = photoRequest(jpeg);
      const samples: Record<Target['name'], number[]> = { receiver: [], 'node-http': [] };
      for (let round = 0; round < load.warmUpRounds + rounds; round++) {
        // Turn about: neither server always runs right after the other's garbage.
        for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
          const arrival = targets[i].nextArrival();
          const { firstByteAt } = await clients[i].send(request);
          const handed = await arrival;
          verify(equal(handed.bytes, jpeg), `${targets[i].name} handed on the picture sent (${bytes} bytes)`);
          if (round >= load.warmUpRounds) samples[targets[i].name].push(handed.at - firstByteAt);
        }
      }
      const common = { bytes, rounds };
      for (const name of ['receiver', 'node-http'] as const) {
        report({ bench: 'photo.put-first-byte-to-handoff', server: name, ...spreadFields('ms', samples[name], 3), ...common });
      }
      report({
        bench: 'photo.put-first-byte-to-handoff',
        of: 'receiver/node-http (latency: above 1 means the receiver takes longer)',
        ...ratioFigure(samples.receiver, samples['node-http']),
        ...common,
      });
    }
  } finally {
    for (const client of clients) client.close();
    for (const target of targets) await target.close();
  }
}
