// Replies built once per state (src/receiver/connection/reply-cache.ts) and the endpoints that use them:
// a cached reply must change as soon as what it was built from changes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags, parseTxtBytes } from '../../src/discovery';
import { decodeBinaryPlist } from '../../src/plist/binary';
import type { PlistDict } from '../../src/plist/value';
import { decodeXmlPlist } from '../../src/plist/xml';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ReplyCache } from '../../src/receiver/connection/reply-cache';
import { ManualClock, MemoryConnection, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

test('ReplyCache builds once per state and variant, rebuilds when the state changes, and keeps a bounded number', () => {
  const cache = new ReplyCache<string>(2);
  let builds = 0;
  const build = (text: string) => () => {
    builds++;
    return text;
  };
  assert.equal(cache.get(['idle', 1], 'en', build('a')), 'a');
  assert.equal(cache.get(['idle', 1], 'en', build('not used')), 'a');
  assert.equal(builds, 1);
  assert.equal(cache.get(['idle', 1], 'de', build('b')), 'b');
  assert.equal(cache.size, 2);
  // A third variant pushes out the oldest.
  assert.equal(cache.get(['idle', 1], 'fr', build('c')), 'c');
  assert.equal(cache.size, 2);
  assert.equal(cache.get(['idle', 1], 'en', build('a2')), 'a2');
  // Any changed state value drops every kept reply; NaN equals NaN (Object.is).
  assert.equal(cache.get(['video', 1], 'de', build('d')), 'd');
  assert.equal(cache.size, 1);
  assert.equal(cache.get(['video', 1, NaN], 'de', build('e')), 'e');
  assert.equal(cache.get(['video', 1, NaN], 'de', build('not used')), 'e');
  // The state array is copied: changing the caller's array later does not change what was kept.
  const state = ['x'];
  cache.get(state, 'v', build('f'));
  state[0] = 'y';
  assert.equal(cache.get(['x'], 'v', build('not used')), 'f');
  assert.throws(() => new ReplyCache(0), RangeError);
});

function makeReceiver(): Receiver {
  return new Receiver(makeConfig({ name: 'Den', deviceId: '58:55:ca:1a:e2:88', profile: 'desktop' }), {
    crypto: portableCryptoKernels,
    clock: new ManualClock(),
    random: seededRandom(5),
    store: new MemoryStore(),
    log: recordingLogger(),
    display: new RecordingDisplay(),
  });
}

async function exchange(receiver: Receiver, request: string, remotePort = 50000): Promise<{ head: string; body: Uint8Array }> {
  const connection = new MemoryConnection();
  connection.remotePort = remotePort;
  receiver.accept(connection);
  connection.send(request);
  const text = connection.text;
  const end = text.indexOf('\r\n\r\n');
  return { head: text.slice(0, end), body: connection.written.subarray(end + 4) };
}

const INFO = 'GET /info RTSP/1.0\r\nCSeq: 1\r\n\r\n';

test('RTSP /info follows the activity (flags, gid in the TXT) and each sender address, while cached', async () => {
  const receiver = makeReceiver();
  const read = async (port = 50000) => decodeBinaryPlist((await exchange(receiver, INFO, port)).body) as PlistDict;
  const gid = (info: PlistDict) => Object.fromEntries(parseTxtBytes(info.txtAirPlay as Uint8Array)).gid;
  const idle = await read();
  assert.equal(idle.senderAddress, '192.0.2.20:50000');
  assert.deepEqual(await read(), idle);
  assert.equal((await read(50001)).senderAddress, '192.0.2.20:50001');

  receiver.setActivity('receivingVideo');
  const busy = await read();
  const txt = Object.fromEntries(receiver.services()[0].txt);
  assert.equal(busy.statusFlags, parseFlags(txt.flags));
  assert.notEqual(busy.statusFlags, idle.statusFlags);
  assert.equal(gid(busy), txt.gid);
  assert.notEqual(gid(busy), gid(idle));

  // Back to idle is a new activity period: a new gid, not the first reply again.
  receiver.setActivity('idle');
  const again = await read();
  assert.equal(again.statusFlags, idle.statusFlags);
  assert.equal(gid(again), Object.fromEntries(receiver.services()[0].txt).gid);
  assert.notEqual(gid(again), gid(idle));
});

test('/slideshow-features is answered per language from the cache, /server-info and OPTIONS alike', async () => {
  const receiver = makeReceiver();
  const themes = async (language: string) => {
    const reply = await exchange(receiver, `GET /slideshow-features HTTP/1.1\r\nAccept-Language: ${language}\r\n\r\n`);
    return ((decodeXmlPlist(reply.body) as PlistDict).themes as PlistDict[]).map((theme) => theme.name);
  };
  const english = await themes('en');
  const german = await themes('de');
  assert.notDeepEqual(english, german);
  assert.deepEqual(await themes('en-US,en;q=0.9'), english);
  assert.deepEqual(await themes('de'), german);

  const first = await exchange(receiver, 'GET /server-info HTTP/1.1\r\n\r\n');
  const second = await exchange(receiver, 'GET /server-info HTTP/1.1\r\n\r\n');
  assert.deepEqual(second.body, first.body);
  assert.equal((decodeXmlPlist(first.body) as PlistDict).deviceid, '58:55:CA:1A:E2:88');

  const options = await exchange(receiver, 'OPTIONS * RTSP/1.0\r\nCSeq: 3\r\n\r\n');
  assert.match(options.head, /\r\nPublic: [^\r]*\bGET\b[^\r]*\bOPTIONS\b/);
  assert.match((await exchange(receiver, 'OPTIONS * RTSP/1.0\r\nCSeq: 4\r\n\r\n')).head, /\r\nCSeq: 4\r\n/);
});
