// Flow control on a real socket (DESIGN 6): the Node host's ConnectionDriver pauses a
// connection whose requests wait, so a sender that floods pipelined requests is held back by TCP
// itself, the receiver's memory stays bounded, and other senders are served meanwhile.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { LATER, type Request } from '../../src/receiver/connection/router';
import { nodeClock, nodeRandom } from '../../hosts/node/io/ports';
import { listen } from '../../hosts/node/io/tcp';
import { MemoryStore, recordingLogger } from '../support/memory-ports';
import { until } from '../e2e/receiver-process';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const MAX_HELD = 32 * 1024;

test('a flood of pipelined requests behind a slow handler is held back by TCP; memory stays under maxHeldBytes', async () => {
  const receiver = new Receiver(makeConfig({ name: 'Flood', port: 0, limits: { maxHeldBytes: MAX_HELD } }), {
    crypto: portableCryptoKernels,
    clock: nodeClock,
    random: nodeRandom,
    store: new MemoryStore(),
    log: recordingLogger(),
  });
  let held: Request | undefined;
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/slow', handler: (request) => ((held = request), LATER) });
  const connections: ReturnType<Receiver['accept']>[] = [];
  const server = await listen(0, '127.0.0.1', (connection) => connections.push(receiver.accept(connection)));
  const { port } = server.address() as net.AddressInfo;
  const flooder = net.connect(port, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => flooder.once('connect', resolve));
    flooder.write('POST /slow HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
    const request = Buffer.from('GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n');
    const block = Buffer.concat(Array.from({ length: 256 }, () => request));
    // Write until our writes queue on our side (the kernel's buffers are full because the receiver
    // stopped reading), sampling what the receiver holds as we go; a receiver that kept reading
    // would take all 64 MB. The receiver runs in this process: each round lets it read.
    let written = 0;
    let most = 0;
    while (flooder.writableLength < 1024 * 1024 && written < 64 * 1024 * 1024) {
      flooder.write(block);
      written += block.length;
      most = Math.max(most, connections[0]?.heldBytes ?? 0);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(flooder.writableLength >= 1024 * 1024, `the flooder is held back: its writes queue on its side (${written} bytes taken)`);
    assert.ok(held, 'the slow request reached its handler');

    // Another sender is served meanwhile (and the receiver's loop has run many times since: what
    // the flooder's connection holds now is all it will hold).
    const bystander = await fetch(`http://127.0.0.1:${port}/server-info`);
    assert.equal(bystander.status, 200);
    await bystander.arrayBuffer();
    most = Math.max(most, connections[0]?.heldBytes ?? 0);
    assert.ok(most <= MAX_HELD + 64 * 1024, `the receiver held at most ${most} bytes (limit ${MAX_HELD} plus one socket read)`);

    // Once the handler answers, the held requests are answered and reading resumes.
    let answered = 0;
    let text = '';
    flooder.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const marks = text.split('HTTP/1.1 200 OK\r\n').length - 1;
      answered += marks;
      text = text.slice(text.lastIndexOf('HTTP/1.1 200 OK\r\n') + 1);
    });
    held.respond({ status: 200 });
    await until(() => `requests are answered again after the handler answered (${answered})`, () => answered >= 100, 30_000);
  } finally {
    flooder.destroy();
    receiver.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
