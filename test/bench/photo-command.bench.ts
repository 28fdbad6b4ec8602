// PUT /photo on what users run: the `vendorplay-receiver` command (bin/, the compiled build in
// dist/) in a process of its own, against a bare node:http server in another process doing the
// same work with the same bytes: it receives the body into one buffer (Buffer.concat of the
// chunks, as a node:http handler would), checks the JPEG's start and end markers and answers 200.
// The client is this process: one keep-alive connection per server, each picture sent in one
// write with its own X-Vendor-AssetKey (as a sender swiping through new photos sends them).
//
// What the receiver's figure covers: the command as started (default desktop profile, its
// screen server up, no page open) takes the picture, checks its JPEG structure, caches it under
// its key (evicting older ones: the cache is bounded), puts it on its virtual screen and answers
// 200. A page, were one open, would be told and fetch the picture from the screen server: that
// is work after the answer, a second sending of the bytes that node:http's side has no
// counterpart of, so none is open here.
//
// Per size: time from the first byte handed to the socket to the 200's head (min/median/max over
// the rounds; rounds alternate servers and which goes first); CPU per request of each server
// process (utime+stime from /proc/PID/stat over all measured rounds, divided by them; the kernel
// reports it in clock ticks, so the rounds are enough for several hundred ms per server, and the
// spread over `blocks` slices of the rounds is given beside it); VmRSS after the size's rounds;
// and the ratios ours/baseline. Every answer must be a 200; after each size the receiver's
// screen (GET /state) must have shown exactly as many pictures as were sent, the last of the
// size sent last, and the baseline's count of checked pictures the same: a bench that measured
// wrong work fails.
//
// Network safety: both servers listen on loopback only (--no-mdns --interface lo).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ReceiverProcess, within } from '../e2e/receiver-process';
import { sampleJpeg } from '../support/jpeg-samples';
import { ratioFigure, report, round, spreadFields, verify } from './measure';
import { PhotoClient, photoRequest } from './photo-client';

export interface CommandPhotoLoad {
  /**
   * Picture sizes in bytes, each with its measured rounds per server. With `spread`, the rounds
   * cycle through five pictures from bytes×(1-spread) to bytes×(1+spread), out of order, as a
   * sender's photos differ in size (an array kept for the next body must serve larger and
   * smaller ones).
   */
  sizes: { bytes: number; rounds: number; spread?: number }[];
  /** Unmeasured rounds per server before each size's. */
  warmUpRounds: number;
  /** Slices of each size's rounds whose CPU per request gives the CPU figure's spread. */
  blocks: number;
}

// CPU comes in clock ticks (10 ms at USER_HZ 100): rounds enough for about 0.5 s of a server's CPU per size.
export const DEFAULT_COMMAND_PHOTO_LOAD: CommandPhotoLoad = {
  sizes: [
    { bytes: 1 * 1024 * 1024, rounds: 300 },
    { bytes: 4 * 1024 * 1024, rounds: 100 },
    { bytes: 16 * 1024 * 1024, rounds: 40 },
    { bytes: 16 * 1024 * 1024, rounds: 40, spread: 0.25 },
  ],
  warmUpRounds: 10,
  blocks: 5,
};

/** The baseline: receives PUT /photo into one buffer, checks its JPEG markers, answers 200; GET /count says how many it checked. */
const NODE_HTTP_SCRIPT = `
const http = require('node:http');
let count = 0;
let lastBytes = 0;
const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/count') {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ count, lastBytes }));
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const n = body.length;
    const jpeg = n >= 4 && body[0] === 0xff && body[1] === 0xd8 && body[n - 2] === 0xff && body[n - 1] === 0xd9;
    if (jpeg) {
      count++;
      lastBytes = n;
    }
    response.writeHead(jpeg ? 200 : 415, { 'Content-Length': 0 });
    response.end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on 127.0.0.1:' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface Server {
  readonly name: 'receiver' | 'node-http';
  readonly pid: number;
  readonly port: number;
  /** Pictures the server has taken so far, and the size of the last. */
  taken(): Promise<{ count: number; lastBytes: number }>;
  stop(): Promise<void>;
}

async function startReceiver(largest: number): Promise<Server> {
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--limit', `maxPhotoBytes=${largest}`] });
  verify(receiver.screenUrl !== undefined, 'the receiver serves its screen (default desktop profile)');
  const stateUrl = new URL('state', receiver.screenUrl);
  return {
    name: 'receiver',
    pid: receiver.child.pid!,
    port: receiver.port,
    taken: async () => {
      const state = (await (await fetch(stateUrl)).json()) as { photo: { version: number; bytes: number } | null };
      return { count: state.photo?.version ?? 0, lastBytes: state.photo?.bytes ?? 0 };
    },
    stop: async () => {
      await receiver.stop();
    },
  };
}

async function startNodeHttp(): Promise<Server> {
  const child = spawn(process.execPath, ['-e', NODE_HTTP_SCRIPT, 'node-http-photo'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const port = await within(
    20_000,
    'the node:http baseline to listen',
    new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (text: string) => {
        out += text;
        const match = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the node:http baseline exited (${code}): ${out}`)));
    }),
  );
  return {
    name: 'node-http',
    pid: child.pid!,
    port,
    taken: async () => (await (await fetch(`http://127.0.0.1:${port}/count`)).json()) as { count: number; lastBytes: number },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

/** utime + stime of process `pid`, in ms (fields 14 and 15 of /proc/PID/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  // The command name (field 2) may hold spaces: the fields after it start past its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  verify(Number.isFinite(ticks), `utime and stime read from /proc/${pid}/stat`);
  return ticks * 10;
}

function residentMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
  verify(Number.isFinite(kb), 'VmRSS read from /proc');
  return round(kb / 1024, 1);
}

/** One request per round with its own AssetKey: the key's last 12 hex digits count the rounds, written in place. */
class KeyedPhotoRequests {
  private readonly bytes: Uint8Array;
  private readonly keyAt: number;
  private static readonly PREFIX = '9a8b7c6d-5e4f-4a3b-8c2d-';

  /** `sent`: the first key's count (distinct per size, so no key comes back). */
  constructor(jpeg: Uint8Array, private sent: number) {
    const first = `${KeyedPhotoRequests.PREFIX}000000000000`;
    this.bytes = photoRequest(jpeg, first);
    this.keyAt = indexOf(this.bytes, first) + KeyedPhotoRequests.PREFIX.length;
  }

  next(): Uint8Array {
    const digits = (this.sent++).toString(16).padStart(12, '0');
    for (let i = 0; i < 12; i++) this.bytes[this.keyAt + i] = digits.charCodeAt(i);
    return this.bytes;
  }
}

function indexOf(bytes: Uint8Array, text: string): number {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1');
  const at = head.indexOf(text);
  verify(at >= 0, `the request head holds ${text}`);
  return at;
}

/** The order a spread size's five pictures are sent in (0 the smallest): larger and smaller ones follow each other. */
const SPREAD_ORDER = [2, 4, 0, 3, 1];

/** The sizes of a size's pictures, in the order they are sent. */
function pictureSizes({ bytes, spread }: { bytes: number; spread?: number }): number[] {
  if (spread === undefined) return [bytes];
  return SPREAD_ORDER.map((k) => Math.round(bytes * (1 - spread + (spread * k) / 2)));
}

export async function runCommandPhotoBench(load: CommandPhotoLoad = DEFAULT_COMMAND_PHOTO_LOAD): Promise<void> {
  const largest = Math.max(...load.sizes.flatMap(pictureSizes));
  const servers = [await startReceiver(largest), await startNodeHttp()];
  const clients = await Promise.all(servers.map((server) => PhotoClient.connect(server.port)));
  const sent = [0, 0];
  try {
    for (const [sizeIndex, size] of load.sizes.entries()) {
      const { bytes, rounds } = size;
      const sizes = pictureSizes(size);
      const jpegs = sizes.map((pictureBytes, k) => sampleJpeg(pictureBytes, 11 + sizeIndex + k));
      // One array per picture, both servers sent it in turn: the key is written in place between
      // sends (each send has handed the whole array to the kernel when it resolves), and its count
      // goes on, so no server sees a key twice.
      const requests = jpegs.map((jpeg, k) => new KeyedPhotoRequests(jpeg, sizeIndex * 0x100000 + k * 0x10000));
      let lastBytes = 0;
      const ms: number[][] = [[], []];
      const blockCpu: number[][] = [[], []];
      const blockRounds = Math.ceil(rounds / load.blocks);
      let measuredStart = servers.map((server) => cpuMs(server.pid));
      let blockStart = measuredStart;
      for (let r = 0; r < load.warmUpRounds + rounds; r++) {
        if (r === load.warmUpRounds) {
          measuredStart = servers.map((server) => cpuMs(server.pid));
          blockStart = measuredStart;
        }
        const picture = r % sizes.length;
        lastBytes = sizes[picture];
        for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
          const { firstByteAt, answeredAt } = await clients[i].send(requests[picture].next());
          sent[i]++;
          if (r >= load.warmUpRounds) ms[i].push(answeredAt - firstByteAt);
        }
        const measured = r - load.warmUpRounds + 1;
        if (measured > 0 && (measured % blockRounds === 0 || measured === rounds)) {
          const now = servers.map((server) => cpuMs(server.pid));
          const inBlock = measured % blockRounds === 0 ? blockRounds : measured % blockRounds;
          for (const i of [0, 1]) blockCpu[i].push((now[i] - blockStart[i]) / inBlock);
          blockStart = now;
        }
      }
      const cpuEnd = servers.map((server) => cpuMs(server.pid));
      const rss = servers.map((server) => residentMb(server.pid));
      for (const [i, server] of servers.entries()) {
        const taken = await server.taken();
        verify(taken.count === sent[i] && taken.lastBytes === lastBytes, `${server.name} took every picture sent: ${taken.count} of ${sent[i]}, the last of ${taken.lastBytes} bytes (sent ${lastBytes})`);
      }
      const cpu = servers.map((_, i) => (cpuEnd[i] - measuredStart[i]) / rounds);
      const common = { bytes, ...(size.spread !== undefined && { spread: size.spread, sizes: sizes.join(' ') }), rounds, warmUpRounds: load.warmUpRounds };
      for (const [i, server] of servers.entries()) {
        report({
          bench: 'photo.command.put-first-byte-to-200',
          server: server.name,
          ...spreadFields('ms', ms[i], 3),
          cpuMsPerRequest: round(cpu[i], 2),
          ...spreadFields('cpuMsPerRequestBlock', blockCpu[i], 2),
          rssMbAfter: rss[i],
          ...common,
        });
      }
      const time = ratioFigure(ms[0], ms[1]);
      report({ bench: 'photo.command.put-first-byte-to-200', of: 'receiver/node-http time (above 1: the command takes longer)', ...time, ...common });
      report({
        bench: 'photo.command.put-first-byte-to-200',
        of: 'receiver/node-http CPU per request',
        ratio: round(cpu[0] / cpu[1]),
        // Per block (a block's CPU is whole clock ticks: one without a tick of the baseline's has no ratio).
        ...spreadFields('ratio', blockCpu[0].flatMap((value, k) => (blockCpu[1][k] > 0 ? [value / blockCpu[1][k]] : []))),
        blocks: blockCpu[0].length,
        ...common,
      });
      report({ bench: 'photo.command.put-first-byte-to-200', of: 'receiver/node-http RSS after', ratio: round(rss[0] / rss[1]), ...common });
    }
  } finally {
    for (const client of clients) client.close();
    for (const server of servers) await server.stop();
  }
}
