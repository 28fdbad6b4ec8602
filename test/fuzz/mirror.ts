// Fuzz campaigns of screen mirroring (src/mirror, src/receiver/mirror/mirror-session.ts): the avcC
// reader, the POST /stream plist check, the packet reader (the same packets however the bytes are
// split), and whole mirroring sessions fed mutated packet streams, which may only end their
// session, never throw. Portable: ECMAScript only.

import { concat, latin1Encode } from '../../src/bytes';
import { AvcCError, buildAvcC, parseAvcC } from '../../src/mirror/avcc';
import { lengthPrefixed } from '../../src/mirror/annexb-stream';
import { PACKET_TYPE, PacketReader, writePacket, type PacketEvent } from '../../src/mirror/packet';
import { parseStreamRequest, StreamRequestError } from '../../src/mirror/stream-request';
import { encodeBinaryPlist, type PlistDict } from '../../src/plist';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import type { Rng } from '../support/arbitrary';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { RecordingDecoder, memoryUdp } from '../support/mirror-ports';
import { FuzzFailure, type Campaign } from './engine';
import { mutate, randomSplit } from './mutate';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

function nal(rng: Rng, type: number, size: number): Uint8Array {
  const unit = rng.bytes(Math.max(1, size));
  unit[0] = type;
  return unit;
}

function randomAvcC(rng: Rng): Uint8Array {
  const sps = Array.from({ length: rng.int(1, 2) }, () => nal(rng, 0x67, rng.int(4, 40)));
  const pps = Array.from({ length: rng.int(1, 2) }, () => nal(rng, 0x68, rng.int(1, 10)));
  return buildAvcC(sps, pps, rng.pick([1, 2, 4] as const));
}

/** A plausible packet stream: codec data, video, heartbeats, now and then an unknown type. */
function randomStream(rng: Rng): Uint8Array {
  const packets = [writePacket(PACKET_TYPE.codecData, buildAvcC([nal(rng, 0x67, 8)], [nal(rng, 0x68, 4)], 4))];
  const count = rng.int(0, 8);
  for (let i = 0; i < count; i++) {
    const roll = rng.next();
    if (roll < 0.6) {
      const units = Array.from({ length: rng.int(1, 3) }, () => nal(rng, rng.pick([0x65, 0x41, 0x06]), rng.int(1, 200)));
      packets.push(writePacket(PACKET_TYPE.video, lengthPrefixed(units, 4), rng.int(0, 100), rng.int(0, 2 ** 32 - 1)));
    } else if (roll < 0.8) {
      packets.push(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)));
    } else if (roll < 0.9) {
      packets.push(writePacket(PACKET_TYPE.codecData, randomAvcC(rng)));
    } else {
      packets.push(writePacket(rng.int(3, 0xffff), rng.bytes(rng.int(0, 64))));
    }
  }
  return concat(...packets);
}

const never = (): boolean => false;

export const mirrorAvcC: Campaign<{ bytes: Uint8Array; valid: boolean }> = {
  name: 'mirror-avcc',
  expected: (error) => error instanceof AvcCError,
  generate(rng) {
    const bytes = randomAvcC(rng);
    return rng.next() < 0.2 ? { bytes, valid: true } : { bytes: mutate(rng, bytes), valid: false };
  },
  check({ bytes, valid }) {
    try {
      const avcC = parseAvcC(bytes);
      if (avcC.sps.length === 0 || avcC.pps.length === 0) throw new FuzzFailure('an avcC without SPS or PPS was accepted');
    } catch (error) {
      if (valid && error instanceof AvcCError) throw new FuzzFailure(`a valid avcC was refused: ${error.message}`);
      throw error;
    }
  },
};

const REQUEST: PlistDict = { deviceID: 1, sessionID: -2, version: '130.16', latencyMs: 90, fpsInfo: [{ name: 'SubS' }], timestampInfo: [{ name: 'SubSu' }] };

export const mirrorStreamRequest: Campaign<{ bytes: Uint8Array; valid: boolean }> = {
  name: 'mirror-stream-request',
  expected: (error) => error instanceof StreamRequestError,
  generate(rng) {
    const bytes = encodeBinaryPlist(REQUEST);
    return rng.next() < 0.1 ? { bytes, valid: true } : { bytes: mutate(rng, bytes), valid: false };
  },
  check({ bytes, valid }) {
    try {
      parseStreamRequest(bytes);
    } catch (error) {
      if (valid) throw new FuzzFailure(`the valid request was refused: ${(error as Error).message}`);
      throw error;
    }
  },
};

function events(chunks: readonly Uint8Array[]): string[] {
  const reader = new PacketReader({ maxPayloadBytes: 4096 });
  const out: string[] = [];
  const describe = (event: PacketEvent): string =>
    event.type === 'packet' ? `p${event.header.payloadType}:${event.payload.length}:${event.payload.join(',')}` : event.type === 'skipped' ? `s${event.header.payloadType}:${event.header.payloadSize}` : `e:${event.reason}`;
  for (const chunk of chunks) {
    reader.receive(chunk);
    for (let event = reader.next(); event; event = reader.next()) out.push(describe(event));
  }
  return out;
}

export const mirrorPacketReader: Campaign<Uint8Array> = {
  name: 'mirror-packets',
  expected: never,
  generate(rng) {
    const stream = randomStream(rng);
    return rng.next() < 0.3 ? stream : mutate(rng, stream);
  },
  check(stream, rng) {
    const whole = events([stream]);
    const split = events(randomSplit(rng, stream));
    if (whole.join('|') !== split.join('|')) throw new FuzzFailure('a split of the bytes gave other packets than the whole');
  },
};

export const mirrorSession: Campaign<Uint8Array> = {
  name: 'mirror-session',
  expected: never,
  generate(rng) {
    const stream = randomStream(rng);
    return rng.next() < 0.2 ? stream : mutate(rng, stream);
  },
  check(stream, rng) {
    const clock = new ManualClock();
    const decoder = new RecordingDecoder();
    const receiver = new Receiver(makeConfig({ ntpPort: 0, limits: { maxMirrorPayloadBytes: 4096 } }), {
      crypto: portableCryptoKernels,
      clock,
      random: seededRandom(1),
      store: new MemoryStore(),
      log: recordingLogger(),
      videoDecoder: decoder,
      udp: memoryUdp().binder,
    });
    const connection = receiver.openMirror({ remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7100 }, 0)!;
    const body = encodeBinaryPlist(REQUEST);
    connection.receive(concat(latin1Encode(`POST /stream HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n`), body), 0);
    let now = 0;
    for (const chunk of randomSplit(rng, stream)) {
      now += rng.int(0, 400);
      connection.receive(chunk, now);
      connection.handleTimeout(now);
    }
    connection.transportClosed(undefined, now + 1);
    if (receiver.activity !== 'idle') throw new FuzzFailure(`the activity is ${receiver.activity} after the session's connection closed`);
    if (decoder.kinds[decoder.kinds.length - 1] !== 'reset') throw new FuzzFailure('the decoder was not reset at the end');
  },
};
