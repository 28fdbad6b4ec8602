// The pairing endpoints (spec 5): POST /pair-setup, /pair-verify and /pair-pin-start on HTTP and
// RTSP, and RTSP POST /auth-setup. All are `open`: served before the connection is paired, even
// when access control is on (spec 5.2), since they are how a sender gets paired. And pairing
// management: POST /pair-add, /pair-remove, /pair-list and the HomeKit-style /pairings, one
// handler behind all four, for an admin sender on a pair-verified connection. A failed step is
// answered 200 with its TLV error; a message that is not even well-formed escapes the flows as a
// PairingError, a RequestError the router answers 400.

import { HEADER, STATUS } from '../../http';
import { authSetupReply, AUTH_SETUP_BODY_BYTES, type AuthSetupDevice, type CryptoKernels, PairingsAdmin, PairingStepLimiter, decodeTlv8, PAIR_STATE, TLV, TLV_ERROR, PairSetup, type PairingPeer, setupCodeFor, PairVerify, PeerStore, RECORD_MAX_PEERS, parseRsaPrivateKey, type PairingReply, errorReply, tlvErrorName, RANDOM_PIN, TRANSIENT_SETUP_CODE } from '../../pairing';
import { PairingPin } from './pairing-pin';
import type { Clock, Display, Logger, RandomSource, Store } from '../../platform';
import { describeError } from '../../errors';
import { ConfigError, type ReceiverConfig } from '../config';
import type { ReceiverIdentity } from '../identity';
import type { Deadlines } from '../timers';
import { accessRefusal, type AccessGate } from '../connection/access-gate';
import { PAIR_METHOD } from '../../pairing/tlv-types';
import type { Announce } from '../host-events';
import { utf8Decode } from '../../bytes';
import { refuse, type Request, type Response, type Route, type Router } from '../connection/router';

/** What pairing needs: the configuration (PIN, password, keys, limits), identity and ports. */
interface PairingContext {
  readonly config: Readonly<ReceiverConfig>;
  readonly identity: ReceiverIdentity;
  readonly clock: Clock;
  /** The receiver's timer table: the PIN leaves the screen at its deadline (pairingPin). */
  readonly timers: Deadlines;
  readonly log: Logger;
  readonly random: RandomSource;
  readonly store: Store;
  /** Where the PIN is shown (POST /pair-pin-start, a random PIN's M1), when there is a screen. */
  readonly display?: Pick<Display, 'showPin' | 'hidePin'>;
  /** Pairing's cryptography (ReceiverPorts.crypto). */
  readonly crypto: CryptoKernels;
  /** The access lists, where there are any: a step naming a refused identifier is 403 and closes. */
  readonly access?: AccessGate;
  /** Tells the host a sender paired or a pairing was removed (ReceiverPorts.onEvent). */
  readonly announce?: Announce;
}

/** The two body types pairing requests come with; the reply echoes the request's. */
const PAIRING_MIME = {
  octetStream: 'application/octet-stream',
  tlv8: 'application/pairing+tlv8',
} as const;

/** Largest pair-setup body: M3 holds A (384 bytes) and the proof (64) in fragments; M5 ~150. */
const MAX_PAIR_SETUP_BYTES = 4096;
const MAX_PAIR_VERIFY_BYTES = 1024;
/** Largest management body: an Add Pairing holds an identifier (64), a key (32) and a byte. */
const MAX_MANAGEMENT_BYTES = 1024;

/**
 * The paths of pairing management: the ones receivers of this protocol family serve, and
 * HomeKit's (which the npm hap-controller client posts to). One handler behind all.
 */
const PAIRING_MANAGEMENT_PATHS = ['/pair-add', '/pair-remove', '/pair-list', '/pairings'] as const;

/** What the routes share: the receiver-wide pairing state, for tests and the host. */
export interface PairingService {
  readonly peers: PeerStore;
  readonly setup: PairSetup;
  readonly verify: PairVerify;
  readonly admin: PairingsAdmin;
  /** The budget of costly steps (its served and refused counts). */
  readonly limiter: PairingStepLimiter;
  /** The receiver's pairing identifier (pair-setup M6, pair-verify M2). */
  readonly identifier: string;
  /** The device key and certificate when configured (spec 5.5, 5.6). */
  readonly device: AuthSetupDevice | undefined;
}

/**
 * The device credentials of the configuration; a ConfigError naming the field when the key or
 * certificate cannot be read (at start, not at the first sender).
 */
function deviceCredentials(config: Readonly<ReceiverConfig>): AuthSetupDevice | undefined {
  if (config.authKey === undefined || config.authCertificate === undefined) return undefined;
  let privateKey;
  try {
    privateKey = parseRsaPrivateKey(config.authKey);
  } catch (error) {
    throw new ConfigError(`authKey: ${describeError(error)}`);
  }
  if (privateKey.byteLength !== 128) throw new ConfigError(`authKey: an RSA-${privateKey.byteLength * 8} key; spec 5.5 signs with RSA-1024`);
  if (config.authCertificate.length === 0) throw new ConfigError('authCertificate is empty');
  return { privateKey, certificate: config.authCertificate };
}

export function registerPairingRoutes(router: Router, context: PairingContext): PairingService {
  const { config, identity, log, clock, timers, display } = context;
  const ports = context;
  const device = deviceCredentials(config);
  // The identifier a sender stores for this receiver: the device id (TXT deviceid), as
  // third-party receivers in the field and HomeKit accessories use. TXT pi stays the group
  // identifier. Constant across restarts, like the key it goes with.
  const identifier = config.deviceId;
  if (config.limits.maxPairings > RECORD_MAX_PEERS) throw new ConfigError(`limits.maxPairings ${config.limits.maxPairings}: the pairings record holds at most ${RECORD_MAX_PEERS}`);
  const peers = new PeerStore(ports.store, log, config.limits.maxPairings);
  const limiter = new PairingStepLimiter(config.limits, clock, log);
  const admin = new PairingsAdmin(peers, log);
  const pin = new PairingPin({ config, clock, timers, log, random: ports.random, display });
  // The request whose step is being handled (steps are handled synchronously), the identifier
  // it named (pair-setup M5, pair-verify M3) and whether the access lists refused it.
  let asking: Request | undefined;
  let namedPeer: string | undefined;
  let refusedPeer: string | undefined;
  const { access, announce } = context;
  const refusesPeer =
    access || announce
      ? (id: string): string | undefined => {
          if (!asking) return undefined;
          namedPeer = id;
          const why = access?.refusesPeer(id, { addresses: asking, state: asking.state, peer: peerOf(asking) });
          refusedPeer ??= why;
          return why;
        }
      : undefined;
  const setup = new PairSetup({
    identifier,
    identity,
    // spec 5.2-5.3: the password, 3939 for transient pairing, a random or the fixed PIN (setupCodeFor).
    setupCode: (transient) => setupCodeFor(config, transient),
    randomPin: (peer) => pin.forAttempt(peer.label),
    pinSpent: () => pin.spent(),
    device,
    peers,
    store: ports.store,
    random: ports.random,
    clock,
    log,
    timeoutMs: config.limits.pairingTimeoutMs,
    limits: config.limits,
    onEnded: (outcome) => pin.ended(outcome),
    crypto: ports.crypto,
    refusesPeer,
  });
  announcePin(config, log);
  const verify = new PairVerify({ identifier, identity, peers, random: ports.random, log, crypto: ports.crypto, refusesPeer });

  // Where no PIN or password is asked, a sender that pairs transiently and then goes on in the
  // clear (pyatv's classic audio path: it never switches its side on) is served in the clear:
  // it could have asked everything without pairing. Where one is asked, it gets no such leave.
  const open = config.password === '' && !config.pinRequired;
  const step = (request: Request, m1: string, flow: () => PairingReply): Response => {
    const backoff = limited(limiter, request, m1);
    if (backoff) return backoff;
    asking = request;
    namedPeer = undefined;
    refusedPeer = undefined;
    let reply: PairingReply;
    try {
      reply = flow();
    } finally {
      asking = undefined;
    }
    // Refused by the access lists (AccessGate logged it): not paired or verified, and closed.
    if (refusedPeer !== undefined) return accessRefusal(refusedPeer);
    // A pair-setup M5 that named its identifier and got no error stored the sender.
    if (request.path === '/pair-setup' && namedPeer !== undefined && !reply.error) announce?.('paired', { address: request.remoteAddress }, { identifier: namedPeer });
    return answer(log, request, reply, open);
  };
  // Every route is POST and open (see the file's head).
  const routes: Omit<Route, 'method' | 'open'>[] = [
    { path: '/pair-setup', costly: true, maxBodyBytes: MAX_PAIR_SETUP_BYTES, handler: (request) => step(request, 'pair-setup M1', () => setup.handle(request.body, request.state, pairingPeer(request))) },
    { path: '/pair-verify', costly: true, maxBodyBytes: MAX_PAIR_VERIFY_BYTES, handler: (request) => step(request, 'pair-verify M1', () => verify.handle(request.body, request.state)) },
    ...PAIRING_MANAGEMENT_PATHS.map((path) => ({ path, maxBodyBytes: MAX_MANAGEMENT_BYTES, handler: (request: Request) => manage(admin, log, request, announce) })),
    {
      path: '/pair-pin-start',
      maxBodyBytes: 1024,
      // spec 5.2: the sender asks the receiver to show the PIN its user must type. It stays up
      // until the pair-setup ends or pairingTimeoutMs passes.
      handler: (request): Response => {
        pin.start(peerOf(request));
        return { status: STATUS.ok };
      },
    },
    // RTSP/1.0 in spec 5.6; one known client sends it over HTTP/1.1: both, one handler.
    { path: '/auth-setup', maxBodyBytes: 1024, handler: (request) => authSetup(device, ports, request) },
  ];
  for (const route of routes) router.add({ method: 'POST', open: true, ...route });
  return { peers, setup, verify, admin, limiter, identifier, device };
}

/** A pairing step's reply: 200 with the TLV8 body (a failed step too: its Error item says so, logged here). */
function answer(log: Logger, request: Request, reply: PairingReply, open = false): Response {
  if (reply.error) log('info', `${peerOf(request)} ${request.method} ${request.path}: ${tlvErrorName(reply.error.code)} (${reply.error.reason})`);
  return { status: STATUS.ok, headers: { [HEADER.contentType]: replyType(request) }, body: reply.body, secure: reply.secure, ...(open && reply.transient ? { plaintextMayFollow: true } : {}) };
}

/**
 * An M1 (the step that makes a key) past the rate limits is answered Backoff with RetryDelay
 * before any work; the limiter logs the refusals, counted, so they are not logged here.
 */
function limited(limiter: PairingStepLimiter, request: Request, step: string): Response | undefined {
  if (!isM1(request.body)) return undefined;
  const admission = limiter.admit(request.remoteAddress, request.state, step);
  if (admission.ok) return undefined;
  const reply = errorReply(PAIR_STATE.M2, TLV_ERROR.Backoff, admission.reason, admission.retryDelaySeconds);
  return { status: STATUS.ok, headers: { [HEADER.contentType]: replyType(request) }, body: reply.body };
}

/**
 * Pairing management, on a pair-verified connection only: its peer identifier is what says who
 * asks (HAP: 470 Connection Authorization Required before pair-verify). The route is open so
 * that this refusal is its own whether or not access control is on.
 */
function manage(admin: PairingsAdmin, log: Logger, request: Request, announce: Announce | undefined): Response {
  if (!request.state.encrypted) return refuse(STATUS.connectionAuthorizationRequired, `${request.path} needs a connection encrypted by pair-verify`);
  const reply = admin.handle(request.body, request.state.peerId);
  if (announce && !reply.error) {
    const items = decodeTlv8(request.body);
    const identifier = items.get(TLV.Identifier);
    if (items.get(TLV.Method)?.[0] === PAIR_METHOD.RemovePairing && identifier) announce('unpaired', { address: request.remoteAddress }, { identifier: utf8Decode(identifier, false) });
  }
  const response = answer(log, request, reply);
  return reply.close ? { ...response, close: true } : response;
}

/** spec 5.6 POST /auth-setup: the device's signature over the sender's key. */
function authSetup(device: AuthSetupDevice | undefined, ports: Pick<PairingContext, 'random' | 'crypto'>, request: Request): Response {
  // Without a device key and certificate there is nothing to prove; the receiver does not
  // advertise HasUnifiedAdvertiserInfo then, and says it does not implement this.
  if (!device) return refuse(STATUS.notImplemented, 'no device key and certificate configured (authKey, authCertificate)');
  if (request.body.length !== AUTH_SETUP_BODY_BYTES) {
    return refuse(STATUS.badRequest, `body of ${request.body.length} bytes; spec 5.6 says ${AUTH_SETUP_BODY_BYTES}`);
  }
  const body = authSetupReply(request.body, device, ports.random, ports.crypto);
  return { status: STATUS.ok, headers: { [HEADER.contentType]: PAIRING_MIME.octetStream }, body };
}

/** The reply's Content-Type: the request's pairing type when it used one, else octet-stream. */
function replyType(request: Request): string {
  const type = request.head.headers.get(HEADER.contentType)?.split(';')[0].trim().toLowerCase();
  return type === PAIRING_MIME.tlv8 ? PAIRING_MIME.tlv8 : PAIRING_MIME.octetStream;
}

/** Whether a pairing body is step M1 (State 1); a body that is not TLV8 goes on to be answered 400. */
function isM1(body: Uint8Array): boolean {
  try {
    return decodeTlv8(body).get(TLV.State)?.[0] === PAIR_STATE.M1;
  } catch {
    return false;
  }
}

/** Says at start how senders pair where a PIN is asked, and warns where a required PIN is the public one. */
function announcePin(config: Readonly<ReceiverConfig>, log: Logger): void {
  if (config.password !== '') return;
  if (config.pin === RANDOM_PIN) {
    log('info', `${config.pinRequired ? 'a PIN is required: ' : ''}each pairing gets a random PIN, shown on the screen and in this log`);
  } else if (config.pinRequired && config.pin === TRANSIENT_SETUP_CODE) {
    log('warn', `the PIN required is ${TRANSIENT_SETUP_CODE}, the spec's public code: anyone can pair; give another PIN, or none for a random one per pairing`);
  }
}

/** Who asks, for pair-setup's failure window: its address, and its identity where the request names one. */
function pairingPeer(request: Request): PairingPeer {
  const { headers } = request.head;
  const identity = headers.get(HEADER.dacpId) ?? headers.get(HEADER.clientInstance) ?? request.sessionId;
  return { address: request.remoteAddress, label: peerOf(request), ...(identity ? { identity } : {}) };
}

function peerOf(request: Request): string {
  return `${request.remoteAddress}:${request.remotePort}`;
}
