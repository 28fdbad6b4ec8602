// By hand, inside the simulator's namespace (run.sh beside this file: NOPROBE=1
// MEASURE="node <this file>"): the write path under backpressure. N GET /info requests pipelined
// on one connection while the client reads nothing for 2 s: the kernel's buffers fill, the
// socket's write buffer fills, write() refuses, tcp.ts queues and pauses reading; then the client
// reads and every answer must arrive whole (onWritable as the kernel takes more). Then the same
// with the client's FIN right after the requests (a half-close).
import net from 'node:net';

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 7000);
const N = Number(process.env.REQUESTS ?? 3000);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function pipelined(count, { halfClose }) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port: PORT });
    const chunks = [];
    const started = Date.now();
    socket.on('connect', async () => {
      socket.pause();
      socket.write('GET /info HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count));
      if (halfClose) socket.end();
      await pause(2000);
      socket.resume();
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    const done = (how) => {
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = text.match(/HTTP\/1\.1 200/g)?.length ?? 0;
      resolve({ statuses, bytes: text.length, ms: Date.now() - started, how });
      socket.destroy();
    };
    socket.on('end', () => done('peer closed'));
    socket.on('error', (error) => done(`error ${error.code}`));
    setTimeout(() => done('idle 10 s after the start of reading'), 12000).unref();
  });
}

const one = await pipelined(1, { halfClose: false });
const kept = await pipelined(N, { halfClose: false });
console.log(`${N} pipelined GET /info, reading after 2 s: ${kept.statuses} answers, ${kept.bytes} bytes (${N * one.bytes} expected) (${kept.how}, ${kept.ms} ms)`);
const closed = await pipelined(N, { halfClose: true });
console.log(`the same, FIN after the requests: ${closed.statuses} answers, ${closed.bytes} bytes (${closed.how}, ${closed.ms} ms)`);
