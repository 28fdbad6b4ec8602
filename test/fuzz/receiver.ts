// Fuzz campaign of the receiver's sans-I/O connection as a whole (src/receiver/connection/connection.ts via
// Receiver.open): request streams in the shapes senders use (spec 4: info, photos, slideshows,
// video, pairing, reverse, RTSP), mutated, cut at random places, with time passing in random steps so
// every deadline fires. Portable: ECMAScript only.
//
// Invariants: no call throws; everything the connection sends reads as well-formed responses
// (up to a 101, after which the connection speaks another protocol); it never holds more than
// limits.maxHeldBytes plus the in-flight allowance; it closes when told the transport closed;
// and one receiver serves every input of the campaign without its connections or its heap
// growing (the engine reads the heap before and after).

import { concat, latin1Encode } from '../../src/bytes';
import { MessageParser } from '../../src/http/parser';
import { encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV } from '../../src/pairing/tlv-types';
import type { Display, Logger, Player, PlayerReport, PlayerState } from '../../src/platform';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { encodeXmlPlistBytes } from '../../src/plist/xml';
import { makeConfig } from '../../src/receiver/config';
import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import { Receiver } from '../../src/receiver/receiver';
import type { Rng } from '../support/arbitrary';
import { sampleJpeg } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, seededRandom } from '../support/memory-ports';
import { FuzzFailure, type Campaign } from './engine';
import { HTTP_TOKENS, requestBytes } from './http-shapes';
import { mutate, randomSplit, tokens } from './mutate';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

/** Limits small enough that inputs reach them. */
const LIMITS = { maxHeldBytes: 16 * 1024, maxBodyBytes: 32 * 1024, maxPhotoBytes: 64 * 1024, photoCacheBytes: 256 * 1024, idleTimeoutMs: 30_000, headerTimeoutMs: 5_000, bodyGraceMs: 2_000 };
const IN_FLIGHT_ALLOWANCE = 64 * 1024;
const SESSIONS = ['1B9A5B15-9E2B-4B5E-B6B8-6E4C1D5D0A3C', '00000000-0000-0000-0000-000000000000', 'x'];

/** A screen that counts: a recording one would grow with every input. */
class CountingDisplay implements Display {
  calls = 0;
  showPhoto(): void {
    this.calls++;
  }
  clear(): void {
    this.calls++;
  }
  showStatus(): void {
    this.calls++;
  }
  showPin(): void {
    this.calls++;
  }
  hidePin(): void {
    this.calls++;
  }
}

/**
 * A player that answers every load with a report (cycling through the states, a failure among
 * them) and counts the other calls: the video session then runs every path, and a recording
 * player would grow with every input.
 */
class CyclingPlayer implements Player {
  calls = 0;
  private loads = 0;
  onReport: (report: PlayerReport) => void = () => {};
  load(item: number): void {
    const state = PLAYER_STATES[this.loads++ % PLAYER_STATES.length];
    this.onReport({
      item,
      state,
      position: 1,
      duration: 10,
      rate: state === 'playing' ? 1 : 0,
      readyToPlay: state === 'playing' || state === 'paused',
      bufferEmpty: false,
      bufferFull: true,
      likelyToKeepUp: true,
      loaded: [{ start: 0, duration: 10 }],
      seekable: [{ start: 0, duration: 10 }],
      bytes: 1000,
      requests: 1,
      stalls: 0,
      framesDropped: 0,
      watched: 0,
      ...(state === 'failed' && { error: { code: 404, domain: 'http', message: 'not found' } }),
    });
  }
  setRate(): void {
    this.calls++;
  }
  seek(): void {
    this.calls++;
  }
  stop(): void {
    this.calls++;
  }
}

const PLAYER_STATES: readonly PlayerState[] = ['loading', 'playing', 'paused', 'failed', 'ended', 'idle'];

const tlv = (...items: [number, number[] | Uint8Array][]): Uint8Array => encodeTlv8(items.map(([type, value]) => [type, Uint8Array.from(value)]));

function sessionHeaders(rng: Rng): string {
  let out = '';
  if (rng.next() < 0.7) out += `X-${rng.pick(['Vendor', 'Apple'])}-Session-ID: ${rng.pick(SESSIONS)}\r\n`;
  if (rng.next() < 0.3) out += 'X-Vendor-Device-ID: 0x58:55:ca:1a:e2:88\r\n';
  if (rng.next() < 0.1) out += 'Expect: 100-continue\r\n';
  if (rng.next() < 0.1) out += 'Connection: close\r\n';
  return out;
}

/** One request to a route the receiver serves, with a body of the shape the spec gives it. */
function routeRequest(rng: Rng): Uint8Array {
  const session = sessionHeaders(rng);
  switch (rng.int(0, 24)) {
    case 0:
      return requestBytes(rng, { method: 'GET', target: '/server-info', protocol: 'HTTP/1.1', headers: session });
    case 1:
      return requestBytes(rng, { method: 'GET', target: '/info', protocol: rng.pick(['HTTP/1.1', 'RTSP/1.0']), headers: session + (rng.next() < 0.5 ? 'CSeq: 1\r\n' : '') });
    case 2:
      return requestBytes(rng, { method: 'OPTIONS', target: '*', protocol: 'RTSP/1.0', headers: 'CSeq: 3\r\n' + session });
    case 3: {
      const action = rng.pick(['', 'X-Vendor-AssetAction: cacheOnly\r\n', 'X-Vendor-AssetAction: displayCached\r\n']);
      const key = rng.next() < 0.8 ? `X-Vendor-AssetKey: ${rng.pick(['A', 'B', 'C'])}${rng.int(0, 5)}\r\n` : '';
      const transition = rng.next() < 0.3 ? `X-Vendor-Transition: ${rng.pick(['Dissolve', 'None', 'Bogus'])}\r\n` : '';
      const body = action.includes('displayCached') ? new Uint8Array(0) : sampleJpeg(rng.int(46, 4000), rng.int(1, 50));
      return requestBytes(rng, { method: 'PUT', target: '/photo', protocol: 'HTTP/1.1', headers: session + action + key + transition + 'Content-Type: image/jpeg\r\n', body });
    }
    case 4: {
      const settings = { slideDuration: rng.pick([1, 3, 0, -1, 100000]), theme: rng.pick(['Classic', 'Dissolve', 'Bogus']) };
      const value = { state: rng.pick(['playing', 'stopped', 'paused']), settings };
      const body = rng.next() < 0.5 ? encodeBinaryPlist(value) : encodeXmlPlistBytes(value);
      return requestBytes(rng, { method: 'PUT', target: '/slideshows/1', protocol: 'HTTP/1.1', headers: session + 'Content-Type: text/x-apple-plist+xml\r\n', body });
    }
    case 5:
      return requestBytes(rng, { method: 'GET', target: '/slideshow-features', protocol: 'HTTP/1.1', headers: session });
    case 6:
      return requestBytes(rng, {
        method: 'POST',
        target: '/reverse',
        protocol: 'HTTP/1.1',
        headers: session + `Upgrade: ${rng.pick(['PTTH/1.0', 'h2c'])}\r\nConnection: Upgrade\r\nX-Vendor-Purpose: ${rng.pick(['event', 'slideshow'])}\r\n`,
        body: new Uint8Array(0),
      });
    case 7: {
      // spec 5.3 pair-setup: an M1 now and then (each costs an SRP key), mostly other states.
      const body = rng.next() < 0.02
        ? tlv([TLV.Method, [0]], [TLV.State, [1]])
        : tlv([TLV.State, [rng.pick([1, 3, 5, 7])]], [TLV.PublicKey, Array.from(rng.bytes(rng.int(0, 400)))], [TLV.Proof, Array.from(rng.bytes(64))]);
      return requestBytes(rng, { method: 'POST', target: '/pair-setup', protocol: rng.pick(['HTTP/1.1', 'RTSP/1.0']), headers: session + 'Content-Type: application/octet-stream\r\n', body });
    }
    case 8: {
      // pair-verify M1 with a random X25519 key (costs a key agreement and a signature): rarely.
      const body = rng.next() < 0.05 ? tlv([TLV.State, [1]], [TLV.PublicKey, Array.from(rng.bytes(32))]) : tlv([TLV.State, [rng.pick([1, 3])]], [TLV.EncryptedData, Array.from(rng.bytes(rng.int(0, 120)))]);
      return requestBytes(rng, { method: 'POST', target: '/pair-verify', protocol: 'HTTP/1.1', headers: session, body });
    }
    case 9:
      return requestBytes(rng, { method: 'POST', target: '/pair-pin-start', protocol: 'HTTP/1.1', headers: session, body: new Uint8Array(0) });
    case 10:
      return requestBytes(rng, { method: 'POST', target: '/stop', protocol: 'HTTP/1.1', headers: session, body: new Uint8Array(0) });
    case 11:
      return requestBytes(rng, { method: 'POST', target: '/auth-setup', protocol: 'HTTP/1.1', headers: session, body: rng.bytes(rng.pick([0, 33, 100])) });
    case 12:
      return requestBytes(rng, { protocol: 'RTSP/1.0', headers: `CSeq: ${rng.int(0, 9)}\r\n` + session, noHead: true });
    case 13: {
      // spec 4.2 POST /play: text/parameters or a binary plist, start as a fraction or seconds.
      const url = rng.pick(['http://192.0.2.7/a.mp4', 'https://cdn.example/live/master.m3u8', 'ftp://x/y', '']);
      const body = rng.next() < 0.5
        ? latin1Encode(`Content-Location: ${url}\nStart-Position: ${rng.pick(['0', '0.5', '1.5', 'x'])}\n`)
        : encodeBinaryPlist({ 'Content-Location': url, 'Start-Position-Seconds': rng.pick([0, 12.5, -1]), rate: rng.pick([0, 1]) });
      return requestBytes(rng, { method: 'POST', target: '/play', protocol: 'HTTP/1.1', headers: session + 'Content-Type: text/parameters\r\n', body });
    }
    case 14:
      return requestBytes(rng, { method: rng.pick(['GET', 'POST']), target: `/scrub${rng.pick(['', '?position=12.5', '?position=-1', '?position=x'])}`, protocol: 'HTTP/1.1', headers: session, body: new Uint8Array(0) });
    case 15:
      return requestBytes(rng, { method: 'POST', target: `/rate?value=${rng.pick(['0', '1', '2', '-1', '100', ''])}`, protocol: 'HTTP/1.1', headers: session, body: new Uint8Array(0) });
    case 16:
      return requestBytes(rng, { method: 'GET', target: '/playback-info', protocol: 'HTTP/1.1', headers: session });
    case 17: {
      const body = encodeBinaryPlist({ value: { epoch: 0, flags: rng.pick([0, 1, 5]), timescale: rng.pick([0, 1000]), value: rng.int(0, 20_000) } });
      return requestBytes(rng, { method: 'PUT', target: `/setProperty?${rng.pick(['forwardEndTime', 'reverseEndTime', 'actionAtItemEnd'])}`, protocol: 'HTTP/1.1', headers: session, body });
    }
    case 18:
      return requestBytes(rng, { method: rng.pick(['GET', 'POST']), target: `/getProperty?${rng.pick(['playbackAccessLog', 'playbackErrorLog', 'other'])}`, protocol: 'HTTP/1.1', headers: session, body: new Uint8Array(0) });
    case 19: {
      // A sender's session (RTSP SETUP with a binary plist, as pyatv opens one).
      const body = encodeBinaryPlist({
        deviceID: 'AA:BB:CC:DD:EE:FF',
        sessionUUID: rng.pick(SESSIONS),
        timingProtocol: rng.pick(['None', 'NTP', 'PTP', 'x']),
        ...(rng.next() < 0.7 && { timingPort: rng.pick([1, 7010, 65535, 0, 70_000]) }),
        name: rng.pick(['pyatv', '', 'x'.repeat(300)]),
      });
      return requestBytes(rng, { method: 'SETUP', target: `rtsp://192.0.2.1/${rng.int(0, 9)}`, protocol: 'RTSP/1.0', headers: `CSeq: ${rng.int(0, 9)}\r\nContent-Type: application/x-apple-binary-plist\r\n` + session, body });
    }
    case 20: {
      const body = encodeBinaryPlist({ streams: [{ type: rng.pick([96, 103, 130, 42]), ct: 1, spf: 352, shk: rng.bytes(32) }] });
      return requestBytes(rng, { method: rng.pick(['SETUP', 'TEARDOWN']), target: 'rtsp://192.0.2.1/1', protocol: 'RTSP/1.0', headers: `CSeq: ${rng.int(0, 9)}\r\n` + session, body });
    }
    case 21:
      return requestBytes(rng, { method: rng.pick(['RECORD', 'FLUSH', 'TEARDOWN']), target: 'rtsp://192.0.2.1/1', protocol: 'RTSP/1.0', headers: `CSeq: ${rng.int(0, 9)}\r\n` + session });
    case 22: {
      const line = rng.pick(['volume: -11.5', 'volume: 6', 'volume: x', 'progress: 1/2/3', 'progress: 1/2', 'volume', 'brightness']);
      return requestBytes(rng, { method: rng.pick(['GET_PARAMETER', 'SET_PARAMETER']), target: 'rtsp://192.0.2.1/1', protocol: 'RTSP/1.0', headers: `CSeq: ${rng.int(0, 9)}\r\nContent-Type: text/parameters\r\n` + session, body: latin1Encode(`${line}\r\n`) });
    }
    case 23:
      return requestBytes(rng, { method: 'POST', target: rng.pick(['/feedback', '/command', '/audioMode']), protocol: rng.pick(['HTTP/1.1', 'RTSP/1.0']), headers: 'CSeq: 2\r\n' + session, body: new Uint8Array(0) });
    default:
      return requestBytes(rng, { noHead: true }); // anything: unknown routes, wrong methods
  }
}

const RECEIVER_TOKENS = [...HTTP_TOKENS, ...tokens('X-Vendor-Session-ID: ', 'Content-Length: 70000\r\n', 'Content-Length: 16384\r\n', 'PUT /photo HTTP/1.1\r\n', 'POST /pair-setup HTTP/1.1\r\n')];

interface Step {
  /** Milliseconds that pass before the piece arrives. */
  readonly wait: number;
  readonly piece: Uint8Array;
}

interface ConnectionInput {
  readonly steps: Step[];
  /** Deliver only while the connection wants to read (a driver does; a rogue peer does not). */
  readonly flowControl: boolean;
  /** How it ends: the peer closes, or time runs out. */
  readonly ending: 'close' | 'timeouts';
}

function randomWait(rng: Rng): number {
  const roll = rng.next();
  if (roll < 0.8) return rng.int(0, 20);
  if (roll < 0.95) return rng.int(100, 3000);
  return rng.pick([LIMITS.headerTimeoutMs, LIMITS.bodyGraceMs + 1000, LIMITS.idleTimeoutMs, 35_000]);
}

const ADDRESSES = { remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7000 };

function createReceiverConnectionCampaign(): Campaign<ConnectionInput> {
  let clock = new ManualClock();
  let receiver: Receiver | undefined;
  // Lines are dropped: a recording logger would grow with every input.
  const log: Logger = () => {};
  const setUp = (): void => {
    clock = new ManualClock();
    receiver = new Receiver(makeConfig({ name: 'Fuzz Frame', deviceId: '58:55:CA:1A:E2:88', limits: LIMITS }), {
      crypto: portableCryptoKernels,
      clock,
      random: seededRandom(7),
      store: new MemoryStore(),
      log,
      display: new CountingDisplay(),
      player: new CyclingPlayer(),
    });
  };

  /** Reads everything the connection sent as responses; fails on anything malformed. */
  function checkResponses(sent: Uint8Array[], closed: boolean): void {
    const parser = new MessageParser('response', { maxBodyBytes: 16 * 1024 * 1024, maxHeadBytes: 64 * 1024 });
    for (const bytes of sent) parser.receive(bytes);
    if (closed) parser.receiveEnd();
    for (let event = parser.next(); event; event = parser.next()) {
      if (event.type === 'error') throw new FuzzFailure(`the connection sent a malformed response: ${event.status} ${event.reason}`);
    }
  }

  return {
    name: 'receiver-connection',
    expected: () => false,
    setUp,
    generate(rng) {
      const requests: Uint8Array[] = [];
      const count = rng.int(1, 4);
      for (let i = 0; i < count; i++) requests.push(routeRequest(rng));
      let stream = concat(...requests);
      if (rng.next() < 0.7) stream = mutate(rng, stream, { tokens: RECEIVER_TOKENS, maxEdits: 5 });
      if (rng.next() < 0.03) stream = concat(stream, latin1Encode('PUT /photo HTTP/1.1\r\nContent-Length: 60000\r\n\r\n'), rng.bytes(rng.int(70_000, 100_000)));
      const steps = randomSplit(rng, stream).map((piece) => ({ wait: randomWait(rng), piece }));
      return { steps, flowControl: rng.next() < 0.5, ending: rng.next() < 0.6 ? 'close' : 'timeouts' };
    },
    check(input) {
      const owner = receiver as Receiver;
      if (owner.connectionCount !== 0) throw new FuzzFailure(`${owner.connectionCount} connections left open by earlier inputs`);
      const connection = owner.open(ADDRESSES, clock.now()) as ReceiverConnection;
      if (!connection) throw new FuzzFailure('the receiver refused a connection with none open');
      const sent: Uint8Array[] = [];
      let closed = false;
      const poll = (): void => {
        for (let bytes = connection.pollTransmit(); bytes; bytes = connection.pollTransmit()) sent.push(bytes.slice());
        for (let event = connection.pollEvent(); event; event = connection.pollEvent()) if (event.type === 'close') closed = true;
      };
      const advance = (ms: number): void => {
        const until = clock.now() + ms;
        // Every deadline due before `until` fires at its time, as a driver's timer would.
        for (let due = connection.pollTimeout(); !closed && due !== undefined && due <= until; due = connection.pollTimeout()) {
          if (due > clock.now()) clock.advance(due - clock.now());
          connection.handleTimeout(clock.now());
          poll();
        }
        if (until > clock.now()) clock.advance(until - clock.now());
      };
      for (const step of input.steps) {
        if (closed) break;
        advance(step.wait);
        if (closed) break;
        if (input.flowControl && !connection.wantsRead) break;
        connection.receive(step.piece, clock.now());
        const held = connection.heldBytes;
        if (!closed && connection.mode !== 'closed' && held > LIMITS.maxHeldBytes + IN_FLIGHT_ALLOWANCE) throw new FuzzFailure(`the connection holds ${held} bytes (maxHeldBytes ${LIMITS.maxHeldBytes} + ${IN_FLIGHT_ALLOWANCE})`);
        poll();
      }
      if (!closed && input.ending === 'timeouts') {
        // With no more input, deadlines alone must end it (or it waits on a handler: then the peer closes).
        for (let i = 0; i < 8 && !closed; i++) {
          const due = connection.pollTimeout();
          if (due === undefined) break;
          advance(Math.max(0, due - clock.now()));
        }
      }
      if (!closed) {
        connection.transportClosed(undefined, clock.now());
        poll();
      }
      checkResponses(sent, true);
      if (owner.connectionCount !== 0) throw new FuzzFailure(`the connection is still counted after its transport closed (${owner.connectionCount})`);
      // Time moves on between inputs so per-connection state (pairing locks) expires as it would.
      clock.advance(1000);
    },
    tearDown() {
      receiver?.stop();
      receiver = undefined;
    },
  };
}

export const receiverConnection = createReceiverConnectionCampaign();
