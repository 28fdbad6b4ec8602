// Fuzz campaign of admission and eviction with many connections from many addresses at once: one
// Receiver with small limits serves every input of a run, and its connections live across inputs
// (a crowd builds up, as on a busy network). Each input is a short sequence of actions from a dozen
// addresses: open a connection, feed it bytes of one kind (a whole request, half a head, a refused
// request whose body trickles, a transient pair-setup that leaves it encrypted and idle, a POST
// /reverse, a pipelined burst whose answers pile up), stop or start reading its answers (a peer
// that never reads), let time pass so every deadline fires (head, body, idle, write, reverse
// idle), close it. Portable: ECMAScript only.
//
// Invariants, after every action:
//   - no call throws; no deadline comes due again and again without time moving;
//   - at most maxConnections open, at most maxConnectionsPerAddress per address; reverse
//     connections within maxReverseConnections and maxReverseConnectionsPerAddress;
//   - at every open, the decision is the policy's, computed here from the connections'
//     occupations (not by admission.ts): a newcomer is admitted exactly when some connection may
//     make room, and the one closed for it is one the policy names (its own address's at its
//     share; else from the address holding the most; the least useful; the one quiet longest);
//     so a newcomer from an address holding nothing is admitted whenever anything may make room;
//   - a connection whose unsent answers exceed maxUnsentAnswerBytes does not want to read;
//   - a closed connection is gone from the receiver's set, and the set holds no other;
//   - every peer closing leaves the receiver with no connection (tearDown), the heap flat.
//
// Because the crowd lives across inputs, a failure at index I is replayed with `--count I+1`
// (from index 0), not with `--index I` alone.

import { concat, latin1Encode } from '../../src/bytes';
import { MessageParser } from '../../src/http/parser';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import type { Display, Logger } from '../../src/platform';
import type { Occupation } from '../../src/receiver/connection/admission';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { makeConfig } from '../../src/receiver/config';
import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import { Receiver } from '../../src/receiver/receiver';
import type { Rng } from '../support/arbitrary';
import { cheapM3, fixedRandom, pairSetupRequest, rememberingCryptoKernels } from '../support/cheap-pairing';
import { ManualClock, MemoryStore } from '../support/memory-ports';
import { pairSetupM1 } from '../support/pairing-client';
import { Crowd, withReplayHint, type Member } from './crowd';
import { FuzzFailure, type Campaign } from './engine';

/** Small enough that a dozen addresses reach every limit within a few actions. */
const LIMITS = {
  maxConnections: 16,
  maxConnectionsPerAddress: 4,
  maxReverseConnections: 4,
  maxReverseConnectionsPerAddress: 2,
  maxUnsentAnswerBytes: 2048,
  writeTimeoutMs: 6000,
  idleTimeoutMs: 20_000,
  headerTimeoutMs: 3000,
  bodyGraceMs: 1000,
  minBodyBytesPerSecond: 200,
  reverseIdleTimeoutMs: 25_000,
  maxBodyBytes: 8192,
  maxHeldBytes: 16 * 1024,
  pairingTimeoutMs: 5000,
};

const ADDRESSES = Array.from({ length: 12 }, (_, i) => (i === 11 ? 'fd00::b' : `192.0.2.${i + 1}`));

/** What the policy (admission.ts's header, the README's table) lets make room, least useful first. */
const MAKES_ROOM_FOR_ANY: readonly Occupation[] = ['unread-answers', 'refused-body', 'idle', 'head', 'encrypted-idle', 'silent-reverse'];
/** Makes room only for a newcomer from another address (an address keeps its own uploads). */
const MAKES_ROOM_FOR_ANOTHER: readonly Occupation[] = ['body'];
const usefulness = (occupation: Occupation): number => {
  const index = MAKES_ROOM_FOR_ANY.indexOf(occupation);
  return index >= 0 ? index : MAKES_ROOM_FOR_ANY.length + MAKES_ROOM_FOR_ANOTHER.indexOf(occupation);
};

type Feed = 'request' | 'half-head' | 'head-rest' | 'refused-body' | 'body' | 'trickle' | 'pair-m1' | 'pair-m3' | 'reverse' | 'session' | 'burst' | 'garbage';
/** Weighted: the pair-setup steps cost the most, so they come less often. */
const FEEDS: readonly Feed[] = ['request', 'request', 'half-head', 'half-head', 'head-rest', 'refused-body', 'refused-body', 'body', 'trickle', 'trickle', 'pair-m1', 'pair-m3', 'pair-m3', 'reverse', 'reverse', 'session', 'burst', 'burst', 'garbage'];

type Action =
  | { readonly kind: 'open'; readonly address: number; readonly reads: boolean; readonly hostBuffer: boolean; readonly then?: Feed }
  | { readonly kind: 'feed'; readonly target: number; readonly feed: Feed; readonly size: number }
  | { readonly kind: 'reads'; readonly target: number; readonly reads: boolean }
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'close'; readonly target: number };

interface AdmissionMember extends Member {
  /** A transient pair-setup under way: the answers are read for its M2. */
  pairing?: { parser: MessageParser<'response'>; m2?: Uint8Array };
  /** The connection is past a transient pair-setup (its bytes are framed now). */
  encrypted: boolean;
  /** Since when its peer has taken nothing while answers wait (a never-reading peer). */
  stalledSince?: number;
}

const request = (target: string, headers = ''): Uint8Array => latin1Encode(`GET ${target} HTTP/1.1\r\n${headers}\r\n`);
const SERVER_INFO = request('/server-info');
const HALF_HEAD = latin1Encode('GET /server-info HTTP/1.1\r\nX-Vendor-Sess');
const HEAD_REST = latin1Encode('ion-ID: 1\r\n\r\n');
/** Refused at its head (no such path) with a body it must then send at the body rate. */
const REFUSED_HEAD = latin1Encode('GET /no-such-path HTTP/1.1\r\nContent-Length: 4000\r\n\r\n');
/** Accepted at its head, its body still arriving (pair-setup reads a body of up to 4 KB). */
const BODY_HEAD = latin1Encode('POST /pair-setup HTTP/1.1\r\nContent-Length: 3000\r\n\r\n\x06\x01');
/** A sender's session (RTSP SETUP, a binary plist): it holds its connection (busy) until it ends. */
const SESSION_SETUP = ((): Uint8Array => {
  const body = encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: '1B9A5B15-9E2B-4B5E-B6B8-6E4C1D5D0A3C', timingProtocol: 'None', name: 'fuzz' });
  return concat(latin1Encode(`SETUP rtsp://192.0.2.200/1 RTSP/1.0\r\nCSeq: 1\r\nContent-Type: application/x-apple-binary-plist\r\nContent-Length: ${body.length}\r\n\r\n`), body);
})();

const TRANSIENT_M1 = pairSetupRequest(pairSetupM1({ transient: true }));

function reverseRequest(session: number): Uint8Array {
  return latin1Encode(`POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\nX-Vendor-Purpose: ${session % 2 ? 'event' : 'slideshow'}\r\nX-Vendor-Session-ID: 00000000-0000-0000-0000-00000000000${session}\r\nContent-Length: 0\r\n\r\n`);
}

function burst(count: number): Uint8Array {
  const out = new Uint8Array(SERVER_INFO.length * count);
  for (let i = 0; i < count; i++) out.set(SERVER_INFO, i * SERVER_INFO.length);
  return out;
}
const BURSTS = [4, 8, 12].map(burst);

/** A screen that shows nothing (a recording one would grow with every input). */
const BLANK_DISPLAY: Display = { showPhoto() {}, clear() {}, showStatus() {}, showPin() {}, hidePin() {} };

function randomAction(rng: Rng): Action {
  const roll = rng.next();
  // A third of the addresses open most connections (they reach their share), the rest now and then.
  if (roll < 0.35) return { kind: 'open', address: rng.next() < 0.5 ? rng.int(0, 3) : rng.int(0, ADDRESSES.length - 1), reads: rng.next() < 0.7, hostBuffer: rng.next() < 0.5, ...(rng.next() < 0.6 && { then: rng.pick(FEEDS) }) };
  if (roll < 0.8) return { kind: 'feed', target: rng.int(0, 63), feed: rng.pick(FEEDS), size: rng.int(1, 40) };
  if (roll < 0.85) return { kind: 'reads', target: rng.int(0, 63), reads: rng.next() < 0.5 };
  if (roll < 0.96) {
    // Mostly short: a crowd builds up; now and then long enough for a deadline of each kind.
    const r = rng.next();
    return { kind: 'wait', ms: r < 0.7 ? rng.int(0, 200) : r < 0.95 ? rng.int(500, 4000) : rng.pick([LIMITS.writeTimeoutMs, LIMITS.idleTimeoutMs, LIMITS.reverseIdleTimeoutMs]) };
  }
  return { kind: 'close', target: rng.int(0, 63) };
}

function createAdmissionCampaign(): Campaign<Action[]> {
  let clock = new ManualClock();
  let receiver: Receiver | undefined;
  let crowd: Crowd<AdmissionMember> | undefined;
  /** Inputs since setUp (a failure's replay runs them all). */
  let inputsRun = 0;
  const kernels = rememberingCryptoKernels();
  const log: Logger = () => {};
  // The receiver's set of connections, read to check it against the crowd (a private field: read here only).
  const openSet = (owner: Receiver): Set<ReceiverConnection> => (owner as unknown as { connections: Set<ReceiverConnection> }).connections;

  function checkInvariants(owner: Receiver, members: readonly AdmissionMember[], context: string): void {
    const set = openSet(owner);
    if (set.size > LIMITS.maxConnections) throw new FuzzFailure(`${context}: ${set.size} connections open (maxConnections ${LIMITS.maxConnections})`);
    const counts = new Map<string, number>();
    const reverseCounts = new Map<string, number>();
    let reverse = 0;
    let open = 0;
    for (const member of members) {
      const { connection } = member;
      const mode = connection.mode;
      if (mode === 'closed') {
        if (set.has(connection)) throw new FuzzFailure(`${context}: a closed connection of ${member.address} is still in the receiver's set`);
        continue;
      }
      if (!set.has(connection)) throw new FuzzFailure(`${context}: an open connection (${mode}) of ${member.address} is missing from the receiver's set`);
      open++;
      counts.set(member.address, (counts.get(member.address) ?? 0) + 1);
      if (mode === 'reverse') {
        reverse++;
        reverseCounts.set(member.address, (reverseCounts.get(member.address) ?? 0) + 1);
      } else {
        if (connection.unsent > LIMITS.maxUnsentAnswerBytes && connection.wantsRead) {
          throw new FuzzFailure(`${context}: a connection of ${member.address} holds ${connection.unsent} bytes of unsent answers (maxUnsentAnswerBytes ${LIMITS.maxUnsentAnswerBytes}) and still wants to read`);
        }
        checkWriteDeadline(member, context);
      }
    }
    if (open !== set.size) throw new FuzzFailure(`${context}: the receiver's set holds ${set.size} connections, ${open} are open`);
    for (const [address, count] of counts) {
      if (count > LIMITS.maxConnectionsPerAddress) throw new FuzzFailure(`${context}: ${address} holds ${count} connections (maxConnectionsPerAddress ${LIMITS.maxConnectionsPerAddress})`);
    }
    if (reverse > LIMITS.maxReverseConnections || owner.reverse.size > LIMITS.maxReverseConnections) throw new FuzzFailure(`${context}: ${reverse} reverse connections open, ${owner.reverse.size} registered (maxReverseConnections ${LIMITS.maxReverseConnections})`);
    for (const [address, count] of reverseCounts) {
      if (count > LIMITS.maxReverseConnectionsPerAddress) throw new FuzzFailure(`${context}: ${address} holds ${count} reverse connections (maxReverseConnectionsPerAddress ${LIMITS.maxReverseConnectionsPerAddress})`);
    }
  }

  /**
   * A peer that takes none of the answers waiting for it (in the connection's queue, or the
   * host's buffer full) is let go within writeTimeoutMs of the last bytes it took.
   */
  function checkWriteDeadline(member: AdmissionMember, context: string): void {
    const { connection } = member;
    const now = clock.now();
    if (member.reads || (connection.unsent === 0 && !member.blocked)) {
      member.stalledSince = undefined;
      return;
    }
    member.stalledSince = Math.max(member.stalledSince ?? now, member.lastTake ?? 0);
    if (now - member.stalledSince > LIMITS.writeTimeoutMs) {
      throw new FuzzFailure(`${context}: a connection of ${member.address} whose peer took nothing since ${member.stalledSince} ms (${connection.unsent} bytes unsent${member.blocked ? ', the host buffer full' : ''}) is still open at ${now} ms (writeTimeoutMs ${LIMITS.writeTimeoutMs})`);
    }
  }

  /**
   * The connections the policy lets make room for a newcomer from `address` (undefined: no limit
   * is met, it is admitted without closing any), computed from the occupations.
   */
  function expectedVictims(members: readonly AdmissionMember[], address: string): AdmissionMember[] | undefined {
    const open = members.filter((member) => member.connection.mode !== 'closed');
    const counts = new Map<string, number>();
    for (const member of open) counts.set(member.address, (counts.get(member.address) ?? 0) + 1);
    const atShare = (counts.get(address) ?? 0) >= LIMITS.maxConnectionsPerAddress;
    if (!atShare && open.length < LIMITS.maxConnections) return undefined;
    const candidates = open.filter((member) => {
      const occupation = member.connection.occupation;
      const own = member.address === address;
      if (atShare && !own) return false;
      return MAKES_ROOM_FOR_ANY.includes(occupation) || (!own && MAKES_ROOM_FOR_ANOTHER.includes(occupation));
    });
    // At the address's share it competes with itself; with the receiver full, the address
    // holding the most goes first; then the least useful; then the one quiet longest.
    const key = (member: AdmissionMember): [number, number, number] => [atShare ? 0 : -(counts.get(member.address) ?? 0), usefulness(member.connection.occupation), member.connection.lastActivity];
    const less = (a: readonly number[], b: readonly number[]): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    let best: [number, number, number] | undefined;
    for (const member of candidates) {
      const k = key(member);
      if (!best || less(k, best) < 0) best = k;
    }
    return candidates.filter((member) => best && less(key(member), best) === 0);
  }

  function open(owner: Receiver, members: AdmissionMember[], addressIndex: number, reads: boolean, hostBuffer: boolean, then: Feed | undefined): void {
    const address = ADDRESSES[addressIndex];
    const victims = expectedVictims(members, address);
    const before = members.filter((member) => member.connection.mode !== 'closed');
    const occupations = before.map((member) => member.connection.occupation);
    const connection = owner.open({ remoteAddress: address, remotePort: 40000 + (clock.now() % 20000), localAddress: '192.0.2.200', localPort: 7000 }, clock.now());
    const closed = before.filter((member) => member.connection.mode === 'closed');
    for (const member of closed) crowd?.poll(member);
    // In the crowd before any check, so that a failure leaves it matching the receiver.
    const member = connection && (crowd as Crowd<AdmissionMember>).add({ connection, address, reads, hostBuffer, closed: false, encrypted: false });
    const situation = `open from ${address} with ${before.length} open (${occupations.join(', ')})`;
    if (victims === undefined) {
      if (!connection) throw new FuzzFailure(`${situation}: refused below every limit`);
      if (closed.length > 0) throw new FuzzFailure(`${situation}: closed ${closed.length} below every limit`);
    } else if (victims.length === 0) {
      if (connection) throw new FuzzFailure(`${situation}: admitted though no connection may make room (closed ${closed.map((m) => m.address).join(', ') || 'none'})`);
    } else {
      if (!connection) throw new FuzzFailure(`${situation}: refused though ${victims.length} may make room (${victims.map((m) => `${m.address} ${m.connection.occupation}`).join(', ')})`);
      if (closed.length !== 1 || !victims.includes(closed[0])) {
        throw new FuzzFailure(`${situation}: closed ${closed.map((m) => m.address).join(', ') || 'none'}; the policy names ${victims.map((m) => `${m.address} ${m.connection.occupation}`).join(' or ')}`);
      }
    }
    if (member && then) feed(member, then, 1);
  }

  function feed(member: AdmissionMember, kind: Feed, size: number): void {
    const c = crowd as Crowd<AdmissionMember>;
    if (member.encrypted && kind !== 'garbage' && kind !== 'trickle') return; // its bytes are framed now
    switch (kind) {
      case 'request':
        c.feed(member, SERVER_INFO);
        return;
      case 'half-head':
        c.feed(member, HALF_HEAD);
        return;
      case 'head-rest':
        c.feed(member, HEAD_REST);
        return;
      case 'refused-body':
        c.feed(member, REFUSED_HEAD);
        return;
      case 'body':
        c.feed(member, BODY_HEAD);
        return;
      case 'session':
        c.feed(member, SESSION_SETUP);
        return;
      case 'trickle':
        c.feed(member, new Uint8Array(size).fill(0x78));
        return;
      case 'garbage':
        c.feed(member, latin1Encode('\x00\x01 nonsense \r\n\r\n'));
        return;
      case 'reverse':
        c.feed(member, reverseRequest(size % 4));
        return;
      case 'burst':
        c.feed(member, BURSTS[size % BURSTS.length]);
        return;
      case 'pair-m1': {
        // Only on a quiet connection whose answers are read: the M2 is its next answer.
        const { connection } = member;
        if (!member.reads || connection.mode !== 'request' || connection.occupation !== 'idle' || connection.unsent > 0) return;
        const parser = new MessageParser('response', { maxBodyBytes: 64 * 1024, maxHeadBytes: 16 * 1024 });
        member.pairing = { parser };
        member.onBytes = (bytes) => receivePairingAnswer(member, bytes);
        c.feed(member, TRANSIENT_M1);
        return;
      }
      case 'pair-m3': {
        const m2 = member.pairing?.m2;
        if (!m2 || !member.reads || member.connection.mode !== 'request') return;
        member.pairing = undefined;
        member.onBytes = undefined;
        if (c.feed(member, pairSetupRequest(cheapM3(m2, '3939', kernels)))) member.encrypted = member.connection.state.encrypted;
        return;
      }
    }
  }

  /** Reads the M2 of a transient pair-setup from a reading peer's bytes. */
  function receivePairingAnswer(member: AdmissionMember, bytes: Uint8Array): void {
    const pairing = member.pairing;
    if (!pairing) return;
    pairing.parser.receive(bytes);
    let body: Uint8Array[] = [];
    for (let event = pairing.parser.next(); event; event = pairing.parser.next()) {
      if (event.type === 'error') throw new FuzzFailure(`a malformed answer to a pair-setup M1: ${event.status} ${event.reason}`);
      if (event.type === 'body') body.push(event.data.slice());
      if (event.type === 'end') {
        const joined = concat(...body);
        body = [];
        const items = decodeTlv8(joined);
        const error = items.get(TLV.Error)?.[0];
        // Busy (another connection's pair-setup holds the lock) and Backoff (the budget) are answers too.
        if (error === undefined) pairing.m2 = joined;
        else if (error !== TLV_ERROR.Busy && error !== TLV_ERROR.Backoff) throw new FuzzFailure(`a transient M1 on an open receiver answered error ${error}`);
        member.onBytes = undefined;
        return;
      }
    }
  }

  /** One input's actions, the invariants checked after each. */
  function run(owner: Receiver, c: Crowd<AdmissionMember>, actions: readonly Action[]): void {
    for (const action of actions) {
      const members = c.members;
      switch (action.kind) {
        case 'open':
          open(owner, members, action.address, action.reads, action.hostBuffer, action.then);
          break;
        case 'feed': {
          const member = nth(members, action.target);
          if (member) feed(member, action.feed, action.size);
          break;
        }
        case 'reads': {
          const member = nth(members, action.target);
          if (member) {
            member.reads = action.reads;
            c.poll(member);
          }
          break;
        }
        case 'wait':
          c.advance(action.ms, () => checkInvariants(owner, c.members, `deadlines at ${clock.now()} ms`));
          break;
        case 'close': {
          const member = nth(members, action.target);
          if (member) c.close(member);
          break;
        }
      }
      checkInvariants(owner, c.members, `after ${action.kind}${action.kind === 'feed' ? ` ${action.feed}` : ''}`);
      c.prune();
      // A little time passes between any two actions.
      c.advance(7);
    }
  }

  const nth = (members: readonly AdmissionMember[], target: number): AdmissionMember | undefined => (members.length === 0 ? undefined : members[target % members.length]);

  return {
    name: 'admission',
    expected: () => false,
    setUp() {
      inputsRun = 0;
      clock = new ManualClock();
      receiver = new Receiver(makeConfig({ name: 'Fuzz Admission', deviceId: '58:55:CA:1A:E2:89', limits: LIMITS }), {
        clock,
        random: fixedRandom,
        store: new MemoryStore(),
        log,
        display: BLANK_DISPLAY,
        crypto: kernels,
      });
      crowd = new Crowd(receiver, clock);
    },
    generate(rng) {
      const actions: Action[] = [];
      const count = rng.int(2, 6);
      for (let i = 0; i < count; i++) actions.push(randomAction(rng));
      return actions;
    },
    check(actions) {
      inputsRun++;
      const owner = receiver as Receiver;
      const c = crowd as Crowd<AdmissionMember>;
      try {
        run(owner, c, actions);
      } catch (error) {
        // The crowd lives on: start the next input from an empty receiver, not a broken state.
        for (const connection of [...openSet(owner)]) connection.transportClosed(undefined, clock.now());
        c.members = [];
        throw withReplayHint(error, inputsRun);
      }
    },
    tearDown() {
      crowd?.closeAll();
      receiver?.stop();
      receiver = undefined;
      crowd = undefined;
    },
  };
}

export const admission = createAdmissionCampaign();
