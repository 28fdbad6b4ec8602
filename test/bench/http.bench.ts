// Keep-alive request rate of GET /server-info: the real receiver command against Node's own
// `http` module serving the same bytes, each in its own child process on loopback, driven by
// one load generator in this process; reported as a ratio (receiver / node-http; above 1 means
// the receiver answers faster).

import { spawn } from 'node:child_process';
import net from 'node:net';
import { equal, latin1Encode } from '../../src/bytes';
import { ReceiverProcess, delay, exchange, within, type RawResponse } from '../e2e/receiver-process';
import { report, round } from './measure';

export interface HttpLoad {
  /** Parallel keep-alive connections. */
  connections: number;
  /** Requests written at once on a connection before waiting for their answers (1: sequential). */
  pipeline: number;
  /** Length of one measured round. */
  roundMs: number;
  /** Rounds per server, alternating between the servers (odd, so there is a median). */
  rounds: number;
  warmUpMs: number;
}

export const DEFAULT_HTTP_LOAD: HttpLoad = { connections: 8, pipeline: 1, roundMs: 1500, rounds: 3, warmUpMs: 600 };

const REQUEST = 'GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

/**
 * Node's http server answering every request with the given status, headers and body. Node
 * adds Date itself (as the receiver does) and `Connection: keep-alive`, which it writes on
 * every kept-alive HTTP/1.1 response whatever the handler does; keepAliveTimeout 0 leaves out
 * its `Keep-Alive: timeout=` header and its idle timer.
 */
const NODE_HTTP_SERVER = `
const http = require('node:http');
const { status, headers, body } = JSON.parse(process.env.BENCH_RESPONSE);
const bytes = Buffer.from(body, 'base64');
const server = http.createServer((request, response) => {
  response.writeHead(status, headers);
  response.end(bytes);
});
server.keepAliveTimeout = 0;
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on ' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface NodeHttpServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts Node's http server in a child process, serving `response` (its Date aside). */
async function startNodeHttp(response: RawResponse): Promise<NodeHttpServer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.head.headers) if (name.toLowerCase() !== 'date') headers[name] = value;
  const spec = { status: response.head.status, headers, body: Buffer.from(response.body).toString('base64') };
  const child = spawn(process.execPath, ['-e', NODE_HTTP_SERVER], {
    env: { ...process.env, BENCH_RESPONSE: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const port = await within(
      10_000,
      'node http server start',
      new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout?.setEncoding('utf8');
        child.stdout?.on('data', (text: string) => {
          out += text;
          const match = /listening on (\d+)\n/.exec(out);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`node http server exited (${code}) before listening`)));
      }),
    );
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Counts whole responses in a byte stream of `HTTP/1.1 200` responses framed by Content-Length,
 * with as little work per byte as possible (the load generator must not be the bottleneck).
 */
class ResponseCounter {
  private pending: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private inBody = false;

  /** Feeds bytes; returns how many responses they completed. Throws on anything but a 200. */
  feed(data: Buffer): number {
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    let pos = 0;
    let done = 0;
    for (;;) {
      if (this.inBody) {
        const take = Math.min(this.bodyLeft, bytes.length - pos);
        pos += take;
        this.bodyLeft -= take;
        if (this.bodyLeft > 0) break;
        this.inBody = false;
        done++;
        continue;
      }
      const end = bytes.indexOf('\r\n\r\n', pos, 'latin1');
      if (end < 0) break;
      const head = bytes.toString('latin1', pos, end);
      if (!head.startsWith('HTTP/1.1 200 ')) throw new Error(`load generator: unexpected response ${JSON.stringify(head.slice(0, 80))}`);
      const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
      this.bodyLeft = length ? Number(length[1]) : 0;
      this.inBody = true;
      pos = end + 4;
    }
    // Keep only the unparsed tail (a partial head), copied so the socket's buffer is released.
    bytes = bytes.subarray(pos);
    this.pending = this.inBody || bytes.length === 0 ? Buffer.alloc(0) : Buffer.from(bytes);
    return done;
  }
}

/**
 * Requests per second that the server on `port` answers: `connections` keep-alive connections
 * each write `pipeline` requests, wait for their answers, and repeat until `ms` has passed.
 */
async function requestRate(port: number, load: Pick<HttpLoad, 'connections' | 'pipeline'>, ms: number): Promise<number> {
  const batch = latin1Encode(REQUEST.repeat(load.pipeline));
  const sockets = await Promise.all(
    Array.from({ length: load.connections }, () =>
      within(
        3000,
        `connect to 127.0.0.1:${port}`,
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(socket));
          socket.setNoDelay(true);
          socket.once('error', reject);
        }),
      ),
    ),
  );
  const start = performance.now();
  const deadline = start + ms;
  let completed = 0;
  try {
    await within(
      ms + 5000,
      `load on 127.0.0.1:${port}`,
      Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve, reject) => {
              const counter = new ResponseCounter();
              let outstanding = 0;
              const send = () => {
                outstanding = load.pipeline;
                socket.write(batch);
              };
              socket.on('data', (data: Buffer) => {
                let done: number;
                try {
                  done = counter.feed(data);
                } catch (error) {
                  reject(error);
                  return;
                }
                completed += done;
                outstanding -= done;
                if (outstanding > 0) return;
                if (performance.now() < deadline) send();
                else resolve();
              });
              socket.on('error', reject);
              socket.on('close', () => reject(new Error(`server closed a connection after ${completed} responses`)));
              send();
            }),
        ),
      ),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  return (completed * 1000) / (performance.now() - start);
}

export async function runHttpBench(load: HttpLoad = DEFAULT_HTTP_LOAD): Promise<void> {
  // The default log level (info) logs nothing for a successful request, as a person runs it.
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--limit', `maxConnections=${load.connections + 8}`] });
  let nodeHttp: NodeHttpServer | undefined;
  try {
    const sample = await exchange(receiver.port, REQUEST);
    if (sample.head.status !== 200) throw new Error(`receiver answered GET /server-info with ${sample.head.status}`);
    nodeHttp = await startNodeHttp(sample);
    // Same status and body; the headers differ only by Node's own Connection: keep-alive.
    const nodeSample = await exchange(nodeHttp.port, REQUEST);
    if (nodeSample.head.status !== sample.head.status || !equal(nodeSample.body, sample.body)) throw new Error('node http server does not serve the same response');
    const names = (response: RawResponse) => [...response.head.headers].map(([name]) => name.toLowerCase()).sort();
    const extra = names(nodeSample).filter((name) => !names(sample).includes(name));

    const servers = { receiver: receiver.port, 'node-http': nodeHttp.port };
    const samples: Record<keyof typeof servers, number[]> = { receiver: [], 'node-http': [] };
    for (const port of Object.values(servers)) await requestRate(port, load, load.warmUpMs);
    for (let i = 0; i < load.rounds; i++) {
      for (const [name, port] of Object.entries(servers) as [keyof typeof servers, number][]) {
        samples[name].push(await requestRate(port, load, load.roundMs));
        await delay(50);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const responseBytes = { receiver: responseSize(sample), 'node-http': responseSize(nodeSample) };
    const common = { connections: load.connections, pipeline: load.pipeline, rounds: load.rounds, roundMs: load.roundMs };
    for (const name of Object.keys(servers) as (keyof typeof servers)[]) {
      report({ bench: 'http.server-info', server: name, requestsPerSec: round(median(samples[name]), 0), responseBytes: responseBytes[name], ...common });
    }
    report({
      bench: 'http.server-info',
      ratio: round(median(samples.receiver) / median(samples['node-http'])),
      of: 'receiver/node-http',
      nodeExtraHeaders: extra.join(','),
    });
  } finally {
    await nodeHttp?.stop();
    await receiver.stop();
  }
}

/** Bytes of a response on the wire: status line, headers, empty line, body. */
function responseSize(response: RawResponse): number {
  const { head, body } = response;
  let size = `${head.protocol}/${head.version} ${head.status} ${head.reason}\r\n`.length + 2 + body.length;
  for (const [name, value] of head.headers) size += name.length + 2 + value.length + 2;
  return size;
}
