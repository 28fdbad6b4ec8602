// --on-event on the built command: a hook script writes its VENDORPLAY_* environment to a file
// named by its sequence number; a session's start, a photo and the session's end arrive in that
// order with their sender. The first hook waits on a FIFO the test opens only after the receiver
// has answered the photo and the TEARDOWN: a hook that does not end never holds up the receiver
// (shown by what happened first, not by timing).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeRequest } from '../../src/http';
import { encodeBinaryPlist } from '../../src/plist';
import { BLUE, GREEN, RED, YELLOW, blockPicture } from '../support/color-blocks';
import { ReceiverProcess } from './receiver-process';
import { SocketSender } from './socket-sender';

const SESSION = '3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11';

describe('--on-event', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'on-event-'));
  const fifo = path.join(dir, 'gate');
  let receiver: ReceiverProcess;
  before(async () => {
    execFileSync('mkfifo', [fifo]);
    const script = path.join(dir, 'hook.sh');
    writeFileSync(script, `#!/bin/sh\nif [ "$VENDORPLAY_SEQUENCE" = 1 ]; then cat "${fifo}" > /dev/null; fi\nenv | grep '^VENDORPLAY_' | sort > "${dir}/event-$VENDORPLAY_SEQUENCE"\necho "hook $VENDORPLAY_SEQUENCE wrote"\n`);
    receiver = await ReceiverProcess.start({ args: ['--on-event', `sh ${script}`, '--name', 'Hook Frame'] });
  });
  after(() => receiver.stop());

  test('a session, a photo and its end reach the hook in order; the first hook, held, holds nothing up', async () => {
    const sender = await SocketSender.connect(receiver.port, '127.0.0.80');
    const setup = await sender.request('SETUP', 'rtsp://127.0.0.1/1', {
      protocol: 'RTSP',
      body: encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: SESSION, timingProtocol: 'None', name: 'Kitchen iPad', model: 'iPad8,1' }),
      contentType: 'application/x-apple-binary-plist',
    });
    assert.equal(setup.head.status, 200);
    const photo = await SocketSender.connect(receiver.port, '127.0.0.80');
    const { jpeg } = blockPicture([
      [RED, GREEN],
      [BLUE, YELLOW],
    ]);
    photo.sendWire(writeRequest({ protocol: 'HTTP', version: '1.1', method: 'PUT', target: '/photo', headers: [['Host', '127.0.0.1'], ['X-Vendor-Session-ID', 'photo-1'], ['X-Apple-Device-ID', '0xaabbccddeeff'], ['X-Vendor-AssetKey', 'key-1']], body: jpeg }));
    assert.equal((await photo.response()).head.status, 200);
    assert.equal((await sender.request('TEARDOWN', 'rtsp://127.0.0.1/1', { protocol: 'RTSP' })).head.status, 200);
    // The first hook has not finished (it waits on the FIFO nobody opened yet): the receiver
    // answered both requests while it ran.
    assert.doesNotMatch(receiver.stderr, /hook 1 wrote/);
    await receiver.waitForLog(/--on-event session-ended stdout: hook 3 wrote/);
    writeFileSync(fifo, 'go\n');
    await receiver.waitForLog(/--on-event session-started stdout: hook 1 wrote/);
    const environment = (n: number) => readFileSync(path.join(dir, `event-${n}`), 'utf8');
    assert.equal(
      environment(1),
      ['DEVICE_ID=AA:BB:CC:DD:EE:FF', 'EVENT=session-started', 'MODEL=iPad8,1', 'NAME=Hook Frame', 'SENDER=127.0.0.80', 'SENDER_NAME=Kitchen iPad', 'SEQUENCE=1', `SESSION=${SESSION}`, ''].map((line) => (line ? `VENDORPLAY_${line}` : line)).join('\n'),
    );
    assert.equal(
      environment(2),
      ['BYTES=' + jpeg.length, 'DEVICE_ID=AA:BB:CC:DD:EE:FF', 'EVENT=photo-shown', 'KEY=key-1', 'NAME=Hook Frame', 'SENDER=127.0.0.80', 'SEQUENCE=2', 'SESSION=photo-1', ''].map((line) => (line ? `VENDORPLAY_${line}` : line)).join('\n'),
    );
    assert.match(environment(3), /^VENDORPLAY_EVENT=session-ended$/m);
    assert.match(environment(3), /^VENDORPLAY_REASON=TEARDOWN$/m);
  });
});
