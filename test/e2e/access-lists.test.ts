// Access lists on the built command (--block, --allow), from 127.x addresses (each one a sender of
// its own on loopback): a blocked address is closed when it connects, without an answer; a
// blocked device id is 403 and closed on the first request naming it; an allow list of device ids
// serves an unlisted address only GET /info until it names a listed device; one log line each.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeRequest } from '../../src/http';
import { ReceiverProcess } from './receiver-process';
import { SocketSender } from './socket-sender';

/** A request with the headers a sender sends, on a socket from `localAddress`. */
async function ask(sender: SocketSender, method: string, target: string, headers: [string, string][] = [], protocol: 'HTTP' | 'RTSP' = 'HTTP') {
  const first: [string, string] = protocol === 'RTSP' ? ['CSeq', '1'] : ['Host', '127.0.0.1'];
  sender.sendWire(writeRequest({ protocol, version: protocol === 'RTSP' ? '1.0' : '1.1', method, target, headers: [first, ...headers] }));
  return sender.response();
}

describe('--block', () => {
  let receiver: ReceiverProcess;
  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--block', '127.0.0.66', '--block', '58:55:CA:1A:E2:88,0x0a0b0c0d0e0f'] });
  });
  after(() => receiver.stop());

  test('a blocked address is closed when it connects, unanswered, and said once in the log', async () => {
    const blocked = await SocketSender.connect(receiver.port, '127.0.0.66');
    blocked.send('GET', '/server-info');
    assert.equal(await blocked.closedByPeer(), true);
    await assert.rejects(blocked.response(), /connection ended before a response/);
    await receiver.waitForLog(new RegExp(`warn  127\\.0\\.0\\.66:${blocked.localPort} refused: its address is blocked \\(closed at once\\)`));
  });

  test('a blocked device id is 403 and closed on its first request naming it (X-Apple-Device-ID 0x...); the same address is served without it', async () => {
    const sender = await SocketSender.connect(receiver.port, '127.0.0.67');
    assert.equal((await ask(sender, 'GET', '/server-info')).head.status, 200);
    const refused = await ask(sender, 'GET', '/server-info', [['X-Apple-Device-ID', '0x5855ca1ae288']]);
    assert.equal(refused.head.status, 403);
    assert.match(new TextDecoder().decode(refused.body), /device 0x5855ca1ae288 is blocked/);
    assert.equal(await sender.closedByPeer(), true);
    const rtsp = await SocketSender.connect(receiver.port, '127.0.0.67');
    assert.equal((await ask(rtsp, 'OPTIONS', '*', [['X-Vendor-Device-ID', '0A:0B:0C:0D:0E:0F']], 'RTSP')).head.status, 403);
    assert.equal(await rtsp.closedByPeer(), true);
  });
});

describe('--allow with a device id', () => {
  let receiver: ReceiverProcess;
  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--allow', '58:55:CA:1A:E2:88'] });
  });
  after(() => receiver.stop());

  test('an unlisted address gets /info; anything else once it names the listed device, and 403 before', async () => {
    const stranger = await SocketSender.connect(receiver.port, '127.0.0.70');
    assert.equal((await ask(stranger, 'GET', '/info', [], 'RTSP')).head.status, 200);
    assert.equal((await ask(stranger, 'GET', '/server-info')).head.status, 403);
    assert.equal(await stranger.closedByPeer(), true);
    const listed = await SocketSender.connect(receiver.port, '127.0.0.71');
    assert.equal((await ask(listed, 'GET', '/server-info', [['X-Apple-Device-ID', '0x5855CA1AE288']])).head.status, 200);
    assert.equal((await ask(listed, 'GET', '/server-info')).head.status, 200, 'the connection stays admitted');
  });
});
