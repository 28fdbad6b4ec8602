// By hand, inside the simulator's network namespace (run.sh beside this file starts it): PUT /photo
// of $WORK/photo1.jpg and photo2.jpg 3 times each (seconds to the status line, KB/s), GET /info
// while a paced PUT runs, and a half-closing client's GET /info (the request, then FIN at once).
import net from 'node:net';
import { readFileSync } from 'node:fs';

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 7000);
const WORK = process.env.WORK ?? '/tmp/sock';
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function exchange(head, body, { halfClose = false, paceBytes = 0, paceMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const socket = net.connect({ host: HOST, port: PORT });
    let got = Buffer.alloc(0);
    let statusMs;
    let done = false;
    const finish = (how) => {
      if (done) return;
      done = true;
      socket.destroy();
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const status = Number(/^\S+ (\d+)/.exec(text)?.[1]);
      const length = Number(/content-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      resolve({ status, statusMs, totalMs: Number(process.hrtime.bigint() - started) / 1e6, contentLength: length, bodyBytes: end < 0 ? 0 : got.length - end - 4, how });
    };
    socket.on('connect', () => {
      socket.write(head);
      if (body && paceBytes) {
        // The body in pieces at a set pace, so the upload lasts long enough to ask something during it.
        let at = 0;
        const next = () => {
          if (done || at >= body.length) return;
          socket.write(body.subarray(at, at + paceBytes));
          at += paceBytes;
          setTimeout(next, paceMs);
        };
        next();
      } else if (body) socket.write(body);
      if (halfClose) socket.end();
    });
    socket.on('data', (chunk) => {
      if (statusMs === undefined) statusMs = Number(process.hrtime.bigint() - started) / 1e6;
      got = Buffer.concat([got, chunk]);
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length:\s*(\d+)/i.exec(text.slice(0, Math.max(end, 0)))?.[1] ?? NaN);
      if (end >= 0 && got.length - end - 4 >= length) finish('complete');
    });
    socket.on('end', () => finish('peer closed'));
    socket.on('error', (error) => (done ? undefined : reject(error)));
    setTimeout(() => finish('timeout 120 s'), 120000).unref();
  });
}

const putPhoto = (bytes, options) => exchange(`PUT /photo HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: image/jpeg\r\nContent-Length: ${bytes.length}\r\n\r\n`, bytes, options);
const getInfo = (options) => exchange(`GET /info HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`, undefined, options);

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(2)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} max ${sorted.at(-1).toFixed(2)}`;
}

for (const file of [`${WORK}/photo1.jpg`, `${WORK}/photo2.jpg`]) {
  const bytes = readFileSync(file);
  const seconds = [];
  for (let run = 1; run <= 3; run++) {
    const answer = await putPhoto(bytes);
    const s = answer.statusMs / 1000;
    seconds.push(s);
    console.log(`PUT /photo ${file} (${bytes.length} bytes) run ${run}: ${answer.status} in ${s.toFixed(3)} s, ${(bytes.length / 1024 / s).toFixed(1)} KB/s`);
    await pause(3000); // the decode after the answer, before the next upload
  }
  console.log(`PUT /photo ${bytes.length} bytes: seconds ${summary(seconds)}; KB/s ${summary(seconds.map((s) => bytes.length / 1024 / s))}`);
}

{
  const bytes = readFileSync(`${WORK}/photo2.jpg`);
  // Paced at 128 KB per 50 ms (2.5 MB/s): the upload lasts about 0.75 s where the socket is faster than that.
  const upload = putPhoto(bytes, { paceBytes: 128 * 1024, paceMs: 50 }).then((answer) => ({ ...answer, at: Date.now() }));
  const infos = [];
  for (const delay of [150, 150, 150]) {
    await pause(delay);
    const info = await getInfo();
    infos.push({ ...info, at: Date.now() });
  }
  const put = await upload;
  for (const info of infos) console.log(`GET /info during the upload: ${info.status} in ${info.totalMs.toFixed(0)} ms, ${info.bodyBytes}/${info.contentLength} body bytes, ${info.at <= put.at ? 'before' : 'after'} the PUT's answer`);
  console.log(`  (that PUT: ${put.status} in ${(put.statusMs / 1000).toFixed(3)} s)`);
  await pause(3000);
}

for (const halfClose of [false, true]) {
  const info = await getInfo({ halfClose });
  console.log(`GET /info ${halfClose ? 'half-closed after the request' : 'kept open'}: ${info.status}, ${info.bodyBytes} of ${info.contentLength} body bytes (${info.how}) in ${info.totalMs.toFixed(0)} ms`);
}
