// Fuzz campaign of the pair-setup lock and the budget of costly pairing steps with many senders at
// once, through whole receivers (the pairing-lock campaign drives the lock alone): connections from ten addresses send pair-setup M1s and M3s (right and wrong proofs) in
// random interleavings while time passes and connections close, on a receiver that asks no PIN
// (transient pairings with the public code, fixed-PIN ones) and on one that requires a random PIN.
// Both receivers and their crowds live across inputs, as on a busy network. Portable: ECMAScript only.
//
// The lock is checked against a model of its rules written here from the documented policy
// (src/pairing/setup-lock.ts's header): one holder at a time, freed when its connection closes,
// at its deadline (pairingTimeoutMs after its M1 or its last progress) and when its attempt ends;
// Busy senders queue in arrival order, one place per address, MAX_WAITERS places, each kept while
// its sender asks again within the deadline; a free lock goes to the first waiter. Every M1 that
// reaches the lock must get the answer the model gives (granted or Busy), every M3 the answer its
// state allows, and the receiver's queue must equal the model's, in order, after every action.
//
// The budget (src/pairing/step-limiter.ts) is checked by counting: in any second, an address is
// served at most its fair share (pairingStepsPerSecond over one more than the addresses asking,
// at most pairingStepsPerSecondPerAddress) plus one second's burst of it, the receiver at most its budget
// plus its burst, a connection its own rate plus burst.
//
// Because the crowds live across inputs, a failure at index I is replayed with `--count I+1`.

import { concat } from '../../src/bytes';
import { MessageParser } from '../../src/http/parser';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { MAX_WAITERS } from '../../src/pairing/setup-lock';
import type { Display, Logger } from '../../src/platform';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import type { Rng } from '../support/arbitrary';
import { cheapM3, fixedRandom, pairSetupRequest, rememberingCryptoKernels, wrongM3 } from '../support/cheap-pairing';
import { ManualClock, MemoryStore } from '../support/memory-ports';
import { pairSetupM1 } from '../support/pairing-client';
import { Crowd, withReplayHint, type Member } from './crowd';
import { FuzzFailure, type Campaign } from './engine';

const LIMITS = {
  maxConnections: 64,
  maxConnectionsPerAddress: 16,
  idleTimeoutMs: 20_000,
  pairingTimeoutMs: 3000,
  pairingStepsPerSecond: 8,
  pairingStepsPerSecondPerAddress: 4,
  pairingStepsPerSecondPerConnection: 2,
  // Low and slow enough that the wrong proofs of an address reach the failure window's backoff.
  pairingFailuresBeforeBackoff: 2,
  pairingFailureDecayMs: 120_000,
  // Never locked out for good: the fixed PIN's stored count would end the campaign's pairing.
  pairingMaxFailures: 1_000_000_000,
};
/** The step limiter's window of "addresses asking" (step-limiter.ts ACTIVE_MS). */
const ASKING_MS = 1000;

const ADDRESSES = Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`);

type Action =
  | { readonly kind: 'open'; readonly address: number }
  | { readonly kind: 'm1'; readonly target: number; readonly transient: boolean }
  | { readonly kind: 'm3'; readonly target: number; readonly right: boolean }
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'close'; readonly target: number };

interface Input {
  /** Which receiver: the open one or the one requiring a PIN. */
  readonly pinRequired: boolean;
  readonly actions: readonly Action[];
}

interface PairingMember extends Member {
  readonly parser: MessageParser<'response'>;
  /** The last answer's TLV body, taken by the step that waits for it. */
  reply?: Uint8Array;
  /** Where its pair-setup is, as the receiver should see it. */
  progress: 'none' | 'M2' | 'M4';
  /** Its last M1 was transient. */
  transient: boolean;
  /** The M2 body its M3 answers. */
  m2?: Uint8Array;
  /** Encrypted after a transient pair-setup: it sends no more plaintext steps. */
  encrypted: boolean;
}

interface ModelWaiter {
  readonly member: PairingMember;
  deadline: number;
}

/** One served or refused ask of the budget. */
interface Ask {
  readonly at: number;
  readonly address: string;
  readonly member: PairingMember;
  readonly served: boolean;
  /** Addresses asking when it asked (itself among them), as the budget counts them. */
  readonly asking: number;
}

interface World {
  readonly pinRequired: boolean;
  readonly clock: ManualClock;
  readonly receiver: Receiver;
  readonly crowd: Crowd<PairingMember>;
  /** The PIN on the screen (a person reads it and types it into the sender). */
  pin: string;
  holder: { member: PairingMember; deadline: number } | undefined;
  readonly waiters: ModelWaiter[];
  /** Asks of the last two seconds, oldest first. */
  asks: Ask[];
  /** Wrong proofs per address (Backoff from the failure window needs some). */
  readonly wrongProofs: Map<string, number>;
}

const tlvItems = (body: Uint8Array): Map<number, Uint8Array> => decodeTlv8(body);

const M1 = pairSetupRequest(pairSetupM1());
const TRANSIENT_M1 = pairSetupRequest(pairSetupM1({ transient: true }));
const WRONG_M3 = pairSetupRequest(wrongM3());

function randomAction(rng: Rng): Action {
  const roll = rng.next();
  if (roll < 0.15) return { kind: 'open', address: rng.next() < 0.4 ? rng.int(0, 2) : rng.int(0, ADDRESSES.length - 1) };
  if (roll < 0.55) return { kind: 'm1', target: rng.int(0, 63), transient: rng.next() < 0.4 };
  if (roll < 0.7) return { kind: 'm3', target: rng.int(0, 63), right: rng.next() < 0.5 };
  if (roll < 0.95) {
    const r = rng.next();
    return { kind: 'wait', ms: r < 0.7 ? rng.int(0, 150) : r < 0.95 ? rng.int(300, 2500) : rng.pick([LIMITS.pairingTimeoutMs, LIMITS.pairingTimeoutMs + 1, LIMITS.idleTimeoutMs]) };
  }
  return { kind: 'close', target: rng.int(0, 63) };
}

function createPairingCrowdCampaign(): Campaign<Input> {
  const kernels = rememberingCryptoKernels();
  const log: Logger = () => {};
  let worlds: World[] = [];
  /** Inputs since setUp (a failure's replay runs them all). */
  let inputsRun = 0;

  function makeWorld(pinRequired: boolean): World {
    const clock = new ManualClock();
    const world: Partial<World> & { pin: string } = { pin: '3939' };
    const display: Display = {
      showPhoto() {},
      clear() {},
      showStatus() {},
      showPin: (pin) => {
        world.pin = pin;
      },
      hidePin() {},
    };
    const receiver = new Receiver(makeConfig({ name: 'Fuzz Pairing', deviceId: '58:55:CA:1A:E2:8A', pinRequired, limits: LIMITS }), {
      clock,
      random: fixedRandom,
      store: new MemoryStore(),
      log,
      display,
      crypto: kernels,
    });
    return Object.assign(world, { pinRequired, clock, receiver, crowd: new Crowd<PairingMember>(receiver, clock), holder: undefined, waiters: [], asks: [], wrongProofs: new Map() }) as World;
  }

  // The model of the lock (see the header): what it frees, whom it grants, whom it queues.
  const gone = (member: PairingMember): boolean => member.connection.state.closed;

  /** The holder while it holds; a holder whose connection closed or whose deadline passed is let go (its attempt abandoned). */
  function activeHolder(world: World, now: number): PairingMember | undefined {
    const holder = world.holder;
    if (!holder) return undefined;
    if (!gone(holder.member) && now <= holder.deadline) return holder.member;
    world.holder = undefined;
    holder.member.progress = 'none';
    return undefined;
  }

  function prune(world: World, now: number): void {
    for (let i = world.waiters.length - 1; i >= 0; i--) if (gone(world.waiters[i].member) || now > world.waiters[i].deadline) world.waiters.splice(i, 1);
  }

  function enqueue(world: World, member: PairingMember, now: number): void {
    prune(world, now);
    const waiting = world.waiters.find((waiter) => waiter.member === member);
    if (waiting) waiting.deadline = now + LIMITS.pairingTimeoutMs;
    else if (world.waiters.some((waiter) => waiter.member.address === member.address)) return;
    else if (world.waiters.length < MAX_WAITERS) world.waiters.push({ member, deadline: now + LIMITS.pairingTimeoutMs });
  }

  /** What the lock answers an M1 of `member` now, the model moved on as the lock must. */
  function lockDecision(world: World, member: PairingMember, now: number): 'granted' | 'busy' {
    const holder = activeHolder(world, now);
    if (holder === member) return 'granted'; // a retry of the attempt it holds
    if (holder) {
      enqueue(world, member, now);
      return 'busy';
    }
    prune(world, now);
    const first = world.waiters[0];
    if (first && first.member !== member) {
      enqueue(world, member, now);
      return 'busy';
    }
    if (first) world.waiters.shift();
    world.holder = { member, deadline: now + LIMITS.pairingTimeoutMs };
    return 'granted';
  }

  /** A step of `member` failed: its attempt ends, and with it the lock if it held it. */
  function attemptEnded(world: World, member: PairingMember): void {
    member.progress = 'none';
    if (world.holder?.member === member) world.holder = undefined;
  }

  /** Sends one step and returns its answer's TLV items (undefined: the connection closed instead). */
  function step(world: World, member: PairingMember, bytes: Uint8Array): Map<number, Uint8Array> | undefined {
    member.reply = undefined;
    const { connection } = member;
    const state = `mode ${connection.mode}, ${connection.occupation}, wants to read: ${connection.wantsRead}, ${connection.heldBytes} bytes held, ${connection.unsent} unsent`;
    world.crowd.feed(member, bytes);
    const reply = member.reply as Uint8Array | undefined;
    if (reply === undefined) {
      if (member.closed) return undefined;
      throw new FuzzFailure(`${member.address}: a pair-setup step got no answer (before it: ${state}; after: ${connection.occupation}, ${connection.heldBytes} bytes held)`);
    }
    return tlvItems(reply);
  }

  function m1(world: World, member: PairingMember, transient: boolean): void {
    const { limiter } = world.receiver.pairing;
    const now = world.clock.now();
    const served = limiter.served;
    const refused = limiter.refused;
    const asking = askingNow(world, member.address, now);
    const items = step(world, member, transient ? TRANSIENT_M1 : M1);
    if (!items) return;
    const error = items.get(TLV.Error)?.[0];
    const wasServed = limiter.served === served + 1 && limiter.refused === refused;
    if (!wasServed && !(limiter.refused === refused + 1 && limiter.served === served)) throw new FuzzFailure(`one M1 moved the budget's counts by ${limiter.served - served} served, ${limiter.refused - refused} refused`);
    recordAsk(world, { at: now, address: member.address, member, served: wasServed, asking });
    const what = `M1${transient ? ' (transient)' : ''} from ${member.address} at ${now} ms`;
    if (!wasServed) {
      if (error !== TLV_ERROR.Backoff) throw new FuzzFailure(`${what}: refused by the budget but answered error ${error}`);
      return; // nothing reached pair-setup
    }
    // Pair-setup starts every M1 afresh: the connection's earlier steps are void.
    member.progress = 'none';
    member.transient = transient;
    if (transient && world.pinRequired) {
      if (error !== TLV_ERROR.Unavailable) throw new FuzzFailure(`${what}: a transient pair-setup where a PIN is required answered ${error ?? 'M2'}, not Unavailable`);
      attemptEnded(world, member);
      return;
    }
    if (error === TLV_ERROR.Backoff) {
      // The failure window's wait (before the lock): only for an address that guessed wrong.
      if (transient) throw new FuzzFailure(`${what}: Backoff for a transient pair-setup with the public code (its failures are not counted)`);
      if ((world.wrongProofs.get(member.address) ?? 0) < LIMITS.pairingFailuresBeforeBackoff) throw new FuzzFailure(`${what}: Backoff from the failure window with ${world.wrongProofs.get(member.address) ?? 0} wrong proofs from the address`);
      return;
    }
    const expected = lockDecision(world, member, now);
    const actual = error === undefined ? 'granted' : error === TLV_ERROR.Busy ? 'busy' : `error ${error}`;
    if (actual !== expected) {
      throw new FuzzFailure(`${what}: ${actual}, the lock's rules say ${expected} (holder ${world.holder ? `${world.holder.member.address} until ${world.holder.deadline}` : 'none'}; waiting ${world.waiters.map((waiter) => waiter.member.address).join(', ') || 'none'})`);
    }
    if (expected === 'granted') {
      member.progress = 'M2';
      member.m2 = member.reply;
    }
  }

  function m3(world: World, member: PairingMember, right: boolean): void {
    const now = world.clock.now();
    const m2 = member.m2;
    const bytes = right && m2 ? pairSetupRequest(cheapM3(m2, world.pinRequired ? world.pin : '3939', kernels)) : WRONG_M3;
    const proofRight = right && m2 !== undefined;
    const holder = world.holder;
    const valid = member.progress === 'M2' && holder?.member === member && now <= holder.deadline;
    const items = step(world, member, bytes);
    if (!items) return;
    const error = items.get(TLV.Error)?.[0];
    const what = `M3 (${proofRight ? 'right' : 'wrong'} proof) from ${member.address} at ${now} ms`;
    if (!valid) {
      if (error !== TLV_ERROR.Unknown) throw new FuzzFailure(`${what} out of turn (progress ${member.progress}, holder ${holder ? `${holder.member === member ? 'it' : holder.member.address} until ${holder.deadline}` : 'none'}): answered ${error ?? 'M4'}, not Unknown`);
      attemptEnded(world, member);
      return;
    }
    if (!proofRight) {
      if (error !== TLV_ERROR.Authentication) throw new FuzzFailure(`${what}: answered ${error ?? 'M4'}, not Authentication`);
      if (!member.transient) world.wrongProofs.set(member.address, (world.wrongProofs.get(member.address) ?? 0) + 1);
      attemptEnded(world, member);
      return;
    }
    if (error !== undefined) throw new FuzzFailure(`${what} of the lock's holder within its deadline: answered error ${error}`);
    if (member.transient) {
      // Paired: the attempt ends and the connection is encrypted from here on.
      attemptEnded(world, member);
      member.encrypted = true;
      return;
    }
    member.progress = 'M4';
    (holder as { deadline: number }).deadline = now + LIMITS.pairingTimeoutMs;
  }

  /** Addresses the budget counts as asking at `now` for a new ask of `address` (itself included). */
  function askingNow(world: World, address: string, now: number): number {
    const others = new Set<string>();
    for (const ask of world.asks) if (now - ask.at < ASKING_MS && ask.address !== address) others.add(ask.address);
    return others.size + 1;
  }

  /** Records an ask and checks the counts of the second that ends with it. */
  function recordAsk(world: World, ask: Ask): void {
    const asks = world.asks;
    while (asks.length > 0 && ask.at - asks[0].at >= 2 * ASKING_MS) asks.shift();
    asks.push(ask);
    if (!ask.served) return;
    const inWindow = asks.filter((earlier) => ask.at - earlier.at < ASKING_MS);
    const bound = (rate: number, since: number): number => Math.floor(Math.max(1, rate) + (rate * (ask.at - since)) / 1000 + 1e-9);
    const fair = inWindow.filter((earlier) => earlier.address === ask.address);
    const fewestAsking = Math.min(...fair.map((earlier) => earlier.asking));
    const share = Math.min(LIMITS.pairingStepsPerSecondPerAddress, LIMITS.pairingStepsPerSecond / (fewestAsking + 1));
    const servedHere = fair.filter((earlier) => earlier.served).length;
    if (servedHere > bound(share, fair[0].at)) {
      throw new FuzzFailure(`${ask.address} was served ${servedHere} costly steps within ${ask.at - fair[0].at} ms while ${fewestAsking} addresses asked: its fair share is ${share.toFixed(2)} a second (limits.pairingStepsPerSecond ${LIMITS.pairingStepsPerSecond} over them and a spare, at most ${LIMITS.pairingStepsPerSecondPerAddress})`);
    }
    const servedAll = inWindow.filter((earlier) => earlier.served).length;
    if (servedAll > bound(LIMITS.pairingStepsPerSecond, inWindow[0].at)) throw new FuzzFailure(`${servedAll} costly steps served within ${ask.at - inWindow[0].at} ms (limits.pairingStepsPerSecond ${LIMITS.pairingStepsPerSecond})`);
    const own = inWindow.filter((earlier) => earlier.member === ask.member);
    const servedOwn = own.filter((earlier) => earlier.served).length;
    if (servedOwn > bound(LIMITS.pairingStepsPerSecondPerConnection, own[0].at)) throw new FuzzFailure(`one connection of ${ask.address} served ${servedOwn} costly steps within ${ask.at - own[0].at} ms (limits.pairingStepsPerSecondPerConnection ${LIMITS.pairingStepsPerSecondPerConnection})`);
  }

  /** The receiver's queue equals the model's, in order. */
  function checkQueue(world: World, context: string): void {
    const now = world.clock.now();
    activeHolder(world, now);
    prune(world, now);
    const actual = world.receiver.pairing.setup.waiting;
    const expected = world.waiters.map((waiter) => waiter.member.connection.state);
    if (actual.length !== expected.length || actual.some((state, i) => state !== expected[i])) {
      const name = (state: unknown): string => world.crowd.members.find((member) => member.connection.state === state)?.address ?? 'a closed connection';
      throw new FuzzFailure(`${context}: the pair-setup queue is ${actual.map(name).join(', ') || 'empty'}; arrivals say ${world.waiters.map((waiter) => waiter.member.address).join(', ') || 'empty'}`);
    }
  }

  function open(world: World, addressIndex: number): void {
    const address = ADDRESSES[addressIndex];
    const connection = world.receiver.open({ remoteAddress: address, remotePort: 40000 + (world.clock.now() % 20000), localAddress: '198.51.100.200', localPort: 7000 }, world.clock.now());
    if (!connection) throw new FuzzFailure(`${address} refused though its connections may make room`);
    // One of its own may have made room (maxConnectionsPerAddress): its driver hears the close.
    world.crowd.pollAll();
    const parser = new MessageParser('response', { maxBodyBytes: 64 * 1024, maxHeadBytes: 16 * 1024 });
    const member: PairingMember = { connection, address, reads: true, closed: false, parser, progress: 'none', transient: false, encrypted: false };
    let body: Uint8Array[] = [];
    member.onBytes = (bytes) => {
      if (member.encrypted) return;
      parser.receive(bytes);
      for (let event = parser.next(); event; event = parser.next()) {
        if (event.type === 'error') throw new FuzzFailure(`${address}: a malformed answer: ${event.status} ${event.reason}`);
        if (event.type === 'head' && event.head.status !== 200) throw new FuzzFailure(`${address}: a pair-setup step answered ${event.head.status}`);
        if (event.type === 'body') body.push(event.data.slice());
        if (event.type === 'end') {
          member.reply = concat(...body);
          body = [];
        }
      }
    };
    world.crowd.add(member);
  }

  function run(world: World, actions: readonly Action[]): void {
    const { crowd, clock } = world;
    for (const action of actions) {
      const members = crowd.members;
      let member = action.kind === 'open' || action.kind === 'wait' || members.length === 0 ? undefined : members[action.target % members.length];
      // Most M3s come from the sender holding the lock (it has an M2 to answer), so that proofs,
      // right and wrong, reach SRP and the failure window; the rest arrive out of turn.
      if (action.kind === 'm3' && world.holder && !gone(world.holder.member) && action.target % 4 !== 0) member = world.holder.member;
      switch (action.kind) {
        case 'open':
          open(world, action.address);
          break;
        case 'm1':
          if (member && !member.encrypted) m1(world, member, action.transient);
          break;
        case 'm3':
          if (member && !member.encrypted) m3(world, member, action.right);
          break;
        case 'wait':
          crowd.advance(action.ms);
          break;
        case 'close':
          if (member) crowd.close(member);
          break;
      }
      checkQueue(world, `after ${action.kind}`);
      crowd.prune();
      crowd.advance(5);
    }
    // Time moves on between inputs.
    crowd.advance(50);
    void clock;
  }

  return {
    name: 'pairing-crowd',
    expected: () => false,
    setUp() {
      inputsRun = 0;
      worlds = [makeWorld(false), makeWorld(true)];
    },
    generate(rng) {
      const actions: Action[] = [];
      const count = rng.int(2, 6);
      for (let i = 0; i < count; i++) actions.push(randomAction(rng));
      return { pinRequired: rng.next() < 0.5, actions };
    },
    check(input) {
      inputsRun++;
      const world = worlds[input.pinRequired ? 1 : 0];
      try {
        run(world, input.actions);
      } catch (error) {
        // The crowd lives on: the next input starts from an empty receiver and a fresh model.
        world.crowd.closeAll();
        world.holder = undefined;
        world.waiters.length = 0;
        world.asks = [];
        world.crowd.advance(LIMITS.pairingTimeoutMs + 1);
        throw withReplayHint(error, inputsRun);
      }
    },
    tearDown() {
      for (const world of worlds) {
        world.crowd.closeAll();
        world.receiver.stop();
      }
      worlds = [];
    },
  };
}

export const pairingCrowd = createPairingCrowdCampaign();
