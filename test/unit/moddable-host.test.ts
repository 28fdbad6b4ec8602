// The Moddable host's pure parts (hosts/moddable files that import nothing from the SDK): the
// preference store's limits,
// the ECMA-419 connection's flow control, the ECMA-419 UDP port (mirroring's NTP), the random
// source and the manifest configuration.
// Portable: runs under Node and inside XS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/receiver/config';
import { boardLimits } from '../../src/receiver/boards';
import { hostConfig } from '../../hosts/moddable/manifest-config';
import { getRandomValuesFrom, mixedWithSeed, randomFromUniform } from '../../hosts/moddable/random';
import { preferenceStore, StoreError, type PreferenceBackend } from '../../hosts/moddable/store';
import { adoptConnection, type TcpCallbacks, type TcpSocket } from '../../hosts/moddable/tcp';
import { ecma419UdpBinder, type Udp419, type Udp419Options } from '../../hosts/moddable/udp';

function throwsNamed(fn: () => unknown, name: string, pattern: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Error, `expected a ${name}`);
  assert.equal(caught.name, name);
  assert.match(caught.message, pattern);
}

/** A Preference stand-in with ESP32's behaviour for what the store uses. */
function memoryPreferences(): PreferenceBackend & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    get: (domain, key) => values.get(`${domain}/${key}`) as ArrayBuffer | undefined,
    set: (domain, key, value) => void values.set(`${domain}/${key}`, value),
    delete: (domain, key) => void values.delete(`${domain}/${key}`),
  };
}

test('keeps each record as one preference and reads back a copy of its bytes', () => {
  const preferences = memoryPreferences();
  const store = preferenceStore(preferences);
  const record = new Uint8Array([9, 1, 2, 3, 9]).subarray(1, 4);
  store.put('identity', record);
  const stored = preferences.values.get('vendorplay/identity');
  assert.ok(stored instanceof ArrayBuffer);
  assert.equal(stored.byteLength, 3);
  const read = store.get('identity');
  assert.deepEqual([...(read ?? [])], [1, 2, 3]);
  read![0] = 77;
  assert.deepEqual([...(store.get('identity') ?? [])], [1, 2, 3]);
  store.delete('identity');
  assert.equal(store.get('identity'), undefined);
  assert.equal(store.get('identity.bad'), undefined);
});

test('refuses a key over 15 characters and a record over 4000 bytes (ESP32 NVS), naming them', () => {
  const store = preferenceStore(memoryPreferences());
  throwsNamed(() => store.put('pairing.peer.1234', new Uint8Array(1)), 'StoreError', /"pairing\.peer\.1234" is 17 characters.*1 to 15/);
  throwsNamed(() => store.get(''), 'StoreError', /0 characters/);
  throwsNamed(() => store.put('peers', new Uint8Array(4001)), 'StoreError', /"peers" is 4001 bytes.*at most 4000/);
  store.put('peers', new Uint8Array(4000));
  assert.equal(store.get('peers')?.length, 4000);
  throwsNamed(() => preferenceStore(memoryPreferences(), 'vendorplay-receiver'), 'StoreError', /domain/);
  assert.ok(new StoreError('x') instanceof Error);
});

test('a record that holds the bytes put is not written again (flash wears); other bytes are', () => {
  const preferences = memoryPreferences();
  let sets = 0;
  const counting: PreferenceBackend = { ...preferences, set: (domain, key, value) => (sets++, preferences.set(domain, key, value)) };
  const store = preferenceStore(counting);
  store.put('gid', new Uint8Array([1, 2, 3]));
  store.put('gid', new Uint8Array([9, 1, 2, 3]).subarray(1));
  assert.equal(sets, 1);
  store.put('gid', new Uint8Array([1, 2, 4]));
  store.put('gid', new Uint8Array([1, 2]));
  assert.equal(sets, 3);
  assert.deepEqual([...(store.get('gid') ?? [])], [1, 2]);
});

test('reads a value that is not bytes as no record', () => {
  const preferences = memoryPreferences();
  preferences.values.set('vendorplay/identity', 'text');
  assert.equal(preferenceStore(preferences).get('identity'), undefined);
});

/** An ECMA-419 socket that takes `budget` bytes at a time and records what it was given. */
class ScriptedSocket implements TcpSocket {
  readonly written: number[] = [];
  closed = 0;
  incoming: ArrayBuffer | undefined;
  remoteAddress = '192.0.2.7';
  remotePort = 50123;
  callbacks!: TcpCallbacks;
  constructor(private budget: number) {}
  read(): ArrayBuffer | undefined {
    const bytes = this.incoming;
    this.incoming = undefined;
    return bytes;
  }
  write(bytes: ArrayBufferView | ArrayBuffer): number {
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.length > this.budget) throw new Error('would block');
    this.written.push(...view);
    this.budget -= view.length;
    return this.budget;
  }
  close(): void {
    this.closed++;
  }
  /** The platform says `count` bytes may be written now. */
  writable(count: number): void {
    this.budget = count;
    this.callbacks.onWritable.call(this, count);
  }
  /**
   * The peer half-closes, as Moddable's Linux socket reports it: the task that reads the FIN has
   * found the socket's buffer free again (`free` bytes) but withholds onWritable and calls onError.
   */
  peerHalfCloses(free: number): void {
    this.budget = free;
    this.callbacks.onError.call(this);
  }
}

function adopted(budget = 0) {
  const socket = new ScriptedSocket(budget);
  const timers: (() => void)[] = [];
  const events: string[] = [];
  const connection = adoptConnection(
    'accepted',
    (from, callbacks) => {
      assert.equal(from, 'accepted');
      socket.callbacks = callbacks;
      return socket;
    },
    {
      localPort: 7000,
      localAddress: () => '192.0.2.1',
      highWaterBytes: 8,
      setTimer: (_ms, callback) => timers.push(callback),
      clearTimer: () => {},
    },
  );
  connection.onData = (bytes) => events.push(`data ${[...bytes].join(',')}`);
  connection.onClose = (error) => events.push(`close${error ? ` ${error}` : ''}`);
  connection.onDrain = () => events.push('drain');
  return { socket, connection, timers, events };
}

test('reports the peer and the listener port of an adopted socket', () => {
  const { connection } = adopted();
  assert.equal(connection.remoteAddress, '192.0.2.7');
  assert.equal(connection.remotePort, 50123);
  assert.equal(connection.localAddress, '192.0.2.1');
  assert.equal(connection.localPort, 7000);
});

test('writes no more than the socket takes and sends the rest when it is writable again', () => {
  const { socket, connection, events } = adopted();
  assert.equal(connection.write(new Uint8Array([1, 2, 3, 4, 5])), true);
  assert.deepEqual(socket.written, []);
  socket.writable(3);
  assert.deepEqual(socket.written, [1, 2, 3]);
  // Two bytes wait; six more make eight, the high-water mark: backpressure.
  assert.equal(connection.write(new Uint8Array([6, 7, 8, 9, 10, 11])), false);
  assert.deepEqual(events, []);
  socket.writable(100);
  assert.deepEqual(socket.written, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  assert.deepEqual(events, ['drain']);
});

test('copies what it queues, so the caller may reuse its buffer', () => {
  const { socket, connection } = adopted();
  const buffer = new Uint8Array([1, 2]);
  connection.write(buffer);
  buffer[0] = 99;
  socket.writable(10);
  assert.deepEqual(socket.written, [1, 2]);
});

test('closes only after the queued bytes are out', () => {
  const { socket, connection, events } = adopted();
  connection.write(new Uint8Array([1, 2, 3]));
  connection.close();
  assert.equal(socket.closed, 0);
  assert.equal(connection.write(new Uint8Array([4])), false, 'nothing is taken once closing');
  socket.writable(2);
  assert.equal(socket.closed, 0);
  socket.writable(2);
  assert.deepEqual(socket.written, [1, 2, 3]);
  assert.equal(socket.closed, 1);
  assert.deepEqual(events, ['close']);
});

test('sends the whole answer before closing when the peer half-closes after its request', () => {
  const { socket, connection, events } = adopted();
  socket.writable(4);
  // The answer is written while the request is read; the socket takes its first 4 bytes.
  connection.write(new Uint8Array([1, 2, 3, 4, 5, 6]));
  assert.deepEqual(socket.written, [1, 2, 3, 4]);
  socket.peerHalfCloses(4);
  assert.deepEqual(socket.written, [1, 2, 3, 4, 5, 6]);
  assert.equal(socket.closed, 1);
  assert.deepEqual(events, ['close']);
});

test('a peer that closes with more queued than the socket then takes ends the connection, naming what was not sent', () => {
  const { socket, connection, events } = adopted();
  socket.writable(2);
  connection.write(new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
  socket.peerHalfCloses(2);
  assert.deepEqual(socket.written, [1, 2, 3, 4]);
  assert.equal(socket.closed, 1);
  assert.deepEqual(events, ['close peer closed with 3 bytes not taken']);
});

test('drops a closing connection whose peer takes nothing before the timeout', () => {
  const { socket, connection, timers, events } = adopted();
  connection.write(new Uint8Array([1]));
  connection.close();
  assert.equal(timers.length, 1);
  timers[0]();
  assert.equal(socket.closed, 1);
  assert.deepEqual(events, ['close peer did not take the queued bytes before the close timeout']);
});

test('hands received bytes to the core and reports the peer closing once', () => {
  const { socket, events } = adopted(10);
  socket.incoming = new Uint8Array([7, 8]).buffer;
  socket.callbacks.onReadable.call(socket, 2);
  socket.callbacks.onError.call(socket);
  socket.callbacks.onError.call(socket);
  assert.deepEqual(events, ['data 7,8', 'close']);
  assert.equal(socket.closed, 1);
});

test('draws three bytes from each Math.random value of the ESP32 (n / 0x7fffffff)', () => {
  const values = [0x00abcdef, 0x7fffffff, 0x123456].map((n) => n / 0x7fffffff);
  let next = 0;
  const random = randomFromUniform(() => values[next++]);
  assert.deepEqual([...random(7)], [0xef, 0xcd, 0xab, 0xff, 0xff, 0xff, 0x56]);
  assert.equal(next, 3);
});

test('mixes a seed into the simulator source so two starts with one rand() sequence differ', () => {
  const constant = () => new Uint8Array(16);
  const a = mixedWithSeed(constant, 1_700_000_000_000)(16);
  const b = mixedWithSeed(constant, 1_700_000_000_001)(16);
  assert.notDeepEqual([...a], [...b]);
  assert.ok(a.some((byte) => byte !== 0));
});

test('fills typed arrays through getRandomValues and refuses more than 65536 bytes', () => {
  const getRandomValues = getRandomValuesFrom((length) => new Uint8Array(length).fill(0xa5));
  const words = getRandomValues(new Uint16Array(2));
  assert.deepEqual([...words], [0xa5a5, 0xa5a5]);
  assert.throws(() => getRandomValues(new Uint8Array(65537)), RangeError);
});

test('reads the manifest config, with numbers and booleans given as command-line text', () => {
  const host = hostConfig(
    { name: 'Frame', profile: 'photo-frame', port: '7001', maxConnections: '4', mdns: 'false', logLevel: 'debug', sntp: 'pool.ntp.org', file: { root: '/' } },
    () => '02:00:00:00:00:09',
  );
  assert.equal(host.config.name, 'Frame');
  assert.equal(host.config.nameIsFactoryDefault, false);
  assert.equal(host.config.profile, 'photo-frame');
  assert.equal(host.config.port, 7001);
  assert.equal(host.config.limits.maxConnections, 4);
  assert.equal(host.config.deviceId, '02:00:00:00:00:09');
  assert.equal(host.mdns, false);
  assert.equal(host.logLevel, 'debug');
});

test('config board: the profile takes its limits on that board (boards.ts), explicit limits over them; a board the profile does not fit is refused', () => {
  const fallback = () => '02:00:00:00:00:01';
  const needs = hostConfig({ profile: 'photo-frame' }, fallback).config.limits;
  assert.deepEqual(
    { maxPhotoBytes: needs.maxPhotoBytes, pictureBudgetBytes: needs.pictureBudgetBytes },
    { maxPhotoBytes: boardLimits('esp32s3-psram-8mb', 'photo-frame')!.maxPhotoBytes, pictureBudgetBytes: boardLimits('esp32s3-psram-8mb', 'photo-frame')!.pictureBudgetBytes },
    'without a board: the limits of the board the profile needs',
  );
  const small = boardLimits('esp32s3-psram-2mb', 'photo-frame')!;
  const onSmall = hostConfig({ profile: 'photo-frame', board: 'esp32s3-psram-2mb' }, fallback).config.limits;
  assert.equal(onSmall.maxPhotoBytes, small.maxPhotoBytes);
  assert.equal(onSmall.pictureBudgetBytes, small.pictureBudgetBytes);
  assert.equal(onSmall.photoCacheEntries, small.photoCacheEntries);
  assert.ok(small.maxPhotoBytes! < needs.maxPhotoBytes, 'the 2 MB board takes smaller pictures');
  assert.equal(hostConfig({ profile: 'photo-frame', board: 'esp32s3-psram-2mb', maxPhotoBytes: '100000' }, fallback).config.limits.maxPhotoBytes, 100_000);
  assert.throws(() => hostConfig({ profile: 'photo-frame', board: 'esp32s3' }, fallback), (error: unknown) => error instanceof ConfigError && /config board "esp32s3": the photo-frame profile does not fit it/.test(error.message));
  assert.throws(() => hostConfig({ profile: 'speaker', board: 'esp32-c3' }, fallback), (error: unknown) => error instanceof ConfigError && /config board "esp32-c3" is not a board/.test(error.message));
});

test('takes the manifest deviceId over the fallback, and defaults like the Node host', () => {
  let asked = 0;
  const host = hostConfig({ deviceId: 'aa-bb-cc-dd-ee-ff' }, () => {
    asked++;
    return '02:00:00:00:00:01';
  });
  assert.equal(asked, 0);
  assert.equal(host.config.deviceId, 'AA:BB:CC:DD:EE:FF');
  assert.equal(host.config.name, 'Receiver');
  assert.equal(host.config.nameIsFactoryDefault, true);
  assert.equal(host.config.port, 7000);
  assert.equal(host.mdns, true);
});

test('refuses a config value it cannot read, naming the key', () => {
  const fallback = () => '02:00:00:00:00:01';
  const refuses = (manifest: Record<string, unknown>, pattern: RegExp) => {
    let caught: unknown;
    try {
      hostConfig(manifest, fallback);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof ConfigError, `expected a ConfigError for ${JSON.stringify(manifest)}`);
    assert.match(caught.message, pattern);
  };
  refuses({ port: 'seven' }, /config port: "seven" is not a whole number/);
  refuses({ profile: 'toaster' }, /profile "toaster"/);
  refuses({ mdns: 'maybe' }, /config mdns/);
  refuses({ logLevel: 'loud' }, /logLevel "loud"/);
  refuses({ idleTimeoutMs: '0' }, /limits\.idleTimeoutMs/);
});

test('reads the video decoder config: the software decoder behind a V4L2 one asked for, the ring size, the test clip', () => {
  const fallback = () => '02:00:00:00:00:01';
  assert.deepEqual(hostConfig({}, fallback).video, { codecs: ['h264'], pending: 8, testClip: false, udpEchoTest: false });
  assert.deepEqual(hostConfig({ videoDecoder: 'h264_v4l2m2m', videoPending: '3', mirrorTestClip: 'true', udpEchoTest: true }, fallback).video, {
    codecs: ['h264_v4l2m2m', 'h264'],
    pending: 3,
    testClip: true,
    udpEchoTest: true,
  });
  assert.throws(() => hostConfig({ videoDecoder: 'vp9' }, fallback), /config videoDecoder "vp9" is not h264_v4l2m2m or h264/);
  assert.throws(() => hostConfig({ videoPending: 0 }, fallback), /config videoPending: 0 is not 1 to 32/);
  assert.throws(() => hostConfig({ videoPending: '33' }, fallback), /config videoPending: 33 is not 1 to 32/);
  assert.throws(() => hostConfig({ mirrorTestClip: 'sometimes' }, fallback), /config mirrorTestClip/);
});

test('ECMA-419 UDP: binds on the port asked, sends, hands every readable datagram to onPacket, closes once', () => {
  const written: [number[], string, number][] = [];
  const inbox: (ArrayBuffer & { address: string; port: number })[] = [];
  let options: Udp419Options | undefined;
  let closes = 0;
  const socket: Udp419 = {
    read: () => inbox.shift(),
    write: (bytes, address, port) => {
      written.push([[...new Uint8Array(bytes as ArrayBuffer)], address, port]);
    },
    close: () => {
      closes++;
    },
  };
  const binder = ecma419UdpBinder((given) => ((options = given), socket), () => {});
  const udp = binder(7011);
  assert.equal(options?.port, 7011);
  assert.equal(udp.localPort, 7011);
  udp.send(Uint8Array.of(0x23, 0), '192.0.2.20', 7010);
  assert.deepEqual(written, [[[0x23, 0], '192.0.2.20', 7010]]);
  const got: [number[], string, number][] = [];
  udp.onPacket = (bytes, address, port) => got.push([[...bytes], address, port]);
  for (const [bytes, port] of [[[0x24, 1], 7010], [[0x24, 2], 7010]] as const) {
    inbox.push(Object.assign(Uint8Array.from(bytes).buffer, { address: '192.0.2.20', port }));
  }
  options!.onReadable.call(socket, 2);
  assert.deepEqual(got, [[[0x24, 1], '192.0.2.20', 7010], [[0x24, 2], '192.0.2.20', 7010]]);
  udp.close();
  udp.close();
  assert.equal(closes, 1);
  udp.send(Uint8Array.of(1), '192.0.2.20', 7010);
  assert.equal(written.length, 1, 'nothing is sent after close');
});

test('ECMA-419 UDP: a port in use throws from the binder, as the port contract says', () => {
  const binder = ecma419UdpBinder(() => {
    throw new Error('EADDRINUSE');
  }, () => {});
  assert.throws(() => binder(7011), /EADDRINUSE/);
});
