// The receiver: configuration, identity, activity, advertised services, routes and connections.
// The composition root of src/receiver: it builds each feature with the narrow context that
// feature needs (no feature sees the Receiver), and hands out sans-I/O connections.
// Hosts create one with a complete configuration, give it the ports it needs, and drive its
// connections (src/receiver/connection/connection-driver.ts) and its features' deadlines, one
// timer for all (pollTimeout / handleTimeout, src/receiver/timers.ts TimerDriver).

import { describeError } from '../errors';
import { utf8Decode, utf8Encode } from '../bytes';
import { ConnectionDriver } from './connection/connection-driver';
import { CountedLog } from '../counted-log';
import { DIALECTS, type Dialect } from '../dialect';
import { HEADER, STATUS, httpDate, writeResponse, type ByteAllocator, type RequestHead } from '../http';
import {
  activityFields,
  changeActivity,
  discoveryServices,
  featureMask,
  flagMask,
  type Activity,
  type ActivityFields,
  type ActivityState,
  type DiscoveryIdentity,
  type ServiceAdvertisement,
} from '../discovery';
import type { Advertiser, AudioSink, Clock, Connection, Display, DisplayStatus, Logger, Player, RandomSource, Store, UdpBinder, UdpSocket, VideoDecoder } from '../platform';
import { uuidFromBytes } from '../uuid';
import { freezeConfig, type ReceiverConfig } from './config';
import { ReceiverConnection, hostPort, type ConnectionAddresses, type ConnectionContext } from './connection/connection';
import { OCCUPATIONS, chooseVictim, countByAddress, crowding } from './connection/admission';
import { EventSender } from './media/events';
import { loadOrCreateIdentity, type ReceiverIdentity } from './identity';
import { registerUnservedAudioRoutes } from './audio/audio-routes';
import { registerAudio } from './audio/register-audio';
import type { AudioPlayback } from './audio/audio-playback';
import type { AlacKernel } from '../audio/alac';
import type { AacDecoderFactory } from '../audio/decoder';
import { registerInfoRoutes, type InfoContext } from './info/info';
import { MediaSession } from './media/media-session';
import { MirrorFeature, registerMirrorRoutes } from './mirror/mirror';
import type { CryptoKernels } from '../pairing';
import type { NalKernel } from '../mirror';
import { registerPairingRoutes, type PairingService } from './pairing/pairing-routes';
import { registerPhotoRoutes, type PhotoFeature } from './photo/photo';
import { advertisedFeatures, implementedFeatures, MIRRORING_FEATURES, PROFILES } from './profiles';
import { ReverseRegistry } from './connection/reverse';
import { registerReverseRoute } from './connection/reverse-route';
import { Router } from './connection/router';
import type { Slideshow } from './slideshow/slideshow';
import { registerSlideshowRoutes } from './slideshow/slideshow-routes';
import { registerStopRoute } from './media/stop-route';
import { registerVideoRoutes } from './video/video-routes';
import type { VideoSession } from './video/video-session';
import { RECEIVER_TIMERS, TimerTable, type SansIoTimers } from './timers';
import { DeferredWrites } from './deferred-writes';
import { Sessions, type SessionOrigin } from './session/sessions';
import { registerSessionRoutes } from './session/session-routes';
import { PictureBudget } from './media/picture-budget';
import { AccessGate, devicesNamed } from './connection/access-gate';
import { deviceKey } from './access-list';
import { SenderDirectory, type Announce, type ReceiverEvent } from './host-events';

/** At most one log line about refused connections per this many milliseconds. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/** How long a refused sender should wait before it tries again (Retry-After, RFC 9110 10.2.3). */
const RETRY_AFTER_SECONDS = 2;

/** At most one log line per cause about connections closed by a deadline or to make room, per this many ms. */
const CLOSE_LOG_INTERVAL_MS = 10_000;

/**
 * The answer to a connection the receiver cannot take: 503 with Retry-After, sent at once (its
 * request is not read, so HTTP/1.1: RTSP senders read the status line alike).
 */
function busyResponse(serverHeader: string, wallTime: number): Uint8Array {
  const reason = utf8Encode('this receiver has as many connections as it can take; try again shortly\n');
  return writeResponse({
    protocol: 'HTTP',
    version: '1.1',
    status: STATUS.serviceUnavailable,
    headers: [
      [HEADER.retryAfter, RETRY_AFTER_SECONDS],
      [HEADER.contentType, 'text/plain; charset=utf-8'],
      [HEADER.date, httpDate(wallTime)],
      [HEADER.server, serverHeader],
      [HEADER.connection, 'close'],
    ],
    body: reason,
  });
}

/** Store key of the group id (spec 2.1 gid), kept across restarts. */
const GID_KEY = 'gid';
/** The gid record: the activity it belongs to and the gid. */
const gidRecord = (activity: Activity, gid: string): Uint8Array => utf8Encode(`${activity} ${gid}`);

/** The ports a receiver uses. The advertiser is optional (`--no-mdns`). */
export interface ReceiverPorts {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly store: Store;
  readonly log: Logger;
  readonly advertiser?: Advertiser;
  /**
   * The screen, where there is one (pairing shows its PIN there). Without it the receiver shows
   * no photos: feature bits Photo and PhotoCaching stay clear and PUT /photo is not served.
   */
  readonly display?: Display;
  /**
   * Pairing's, the identity's and the channel's cryptography, the host's pick (DESIGN 5): natives
   * on XS where the board links them, the portable @noble build elsewhere, WebAssembly frames on Node.
   */
  readonly crypto: CryptoKernels;
  /**
   * Plays video by URL (spec 4.2), where the host has a player: without one feature bits Video
   * and VideoHTTPLiveStreams stay clear and the video endpoints are not served.
   */
  readonly player?: Player;
  /**
   * Decodes and shows screen mirroring (spec 4.4), where the host has a decoder and a display:
   * without one feature bit Screen stays clear and nothing listens on the mirroring port.
   */
  readonly videoDecoder?: VideoDecoder;
  /** Binds UDP sockets (mirroring's NTP client, spec 4.5); mirroring needs it with videoDecoder. */
  readonly udp?: UdpBinder;
  /** The mirroring stream's NAL kernel (WebAssembly on Node, the C native on XS); portable when omitted. */
  readonly nalKernel?: NalKernel;
  /**
   * The sessions' timing socket, bound by the host at config.timingPort: senders' sessions with
   * timingProtocol NTP keep time through it. Without it, such a SETUP is refused (501).
   */
  readonly timingSocket?: UdpSocket;
  /**
   * Where realtime audio comes out (the system's sound, a WAV file, I2S on a board). Without it,
   * or without audioSockets, feature bits Audio, AudioFormat2 and 3 stay clear and a sender's
   * ANNOUNCE, Transport SETUP or audio stream is refused (501) with the reason.
   */
  readonly audioSink?: AudioSink;
  /**
   * The audio streams' UDP sockets, bound by the host at config.audioPort and
   * config.audioControlPort: RTP audio arrives on `data`; sync packets, resent packets and the
   * receiver's retransmit requests go through `control`. One stream plays at a time.
   */
  readonly audioSockets?: { readonly data: UdpSocket; readonly control: UdpSocket };
  /** The ALAC decoder kernel (WebAssembly on Node, the C native on XS); portable when omitted. */
  readonly alacKernel?: AlacKernel;
  /**
   * An AAC decoder, where the host has one (libavcodec on the Moddable Linux and media-board
   * builds): AAC-LC streams are then played and advertised (cn 2); without it they are refused.
   */
  readonly aacDecoder?: AacDecoderFactory;
  /**
   * Told what happened (a session began, a photo is shown, mirroring ended, a sender paired:
   * host-events.ts RECEIVER_EVENTS), as it happens, inside the receiver's turn: a host runs
   * anything slow (the Node host's --on-event command) off that turn.
   */
  readonly onEvent?: (event: ReceiverEvent) => void;
  /**
   * Makes the arrays request bodies are joined into (a 16 MB photo is one): arrays the receiver
   * overwrites whole before reading, so a host may hand memory that is not zero-filled
   * (hosts/node/io/ports.ts does). Zero-filled arrays when omitted.
   */
  readonly allocateBytes?: ByteAllocator;
  /**
   * Told when the receiver no longer holds a picture it received into one of allocateBytes'
   * arrays (the picture budget's last holder let go; media/picture-budget.ts): nothing in the
   * core reads it again, so a host may give its memory back now instead of at its next garbage
   * collection. Other arrays may come too: a host frees only what it made.
   */
  readonly freeBytes?: (bytes: Uint8Array) => void;
}

export class Receiver implements InfoContext, SansIoTimers {
  readonly config: Readonly<ReceiverConfig>;
  readonly router = new Router();
  /** The features' deadlines (slideshow, video, the pairing PIN): one table, one host timer. */
  readonly timers = new TimerTable(RECEIVER_TIMERS);
  /** Records that change with every request (the gid), written together off the request path. */
  readonly deferredWrites: DeferredWrites;
  /** Reverse connections of every sender (spec 1.6), by session and purpose. */
  readonly reverse = new ReverseRegistry();
  /** Events to senders over their reverse connections (spec 6). */
  readonly events: EventSender;
  /** The screen, the activity and the media events of photos, slideshows and video. */
  readonly media: MediaSession;
  /** Photos (spec 4.1), when the receiver has a screen and its profile offers them. */
  readonly photos: PhotoFeature | undefined;
  /** Every picture byte held (photos, the screen, slideshow fetches), against limits.pictureBudgetBytes. */
  readonly pictures: PictureBudget;
  /** What the screen's status line shows. */
  private readonly status: DisplayStatus;
  /** Request heads seen, over all connections (Request.order). */
  private requestsSeen = 0;
  readonly identity: ReceiverIdentity;
  /** Pairing (spec 5): the paired senders, pair-setup and pair-verify. */
  readonly pairing: PairingService;
  /** The slideshow (spec 3, 4.1), where there is a screen to show it. */
  readonly slideshow?: Slideshow;
  /**
   * Screen mirroring (spec 4.4), where the host gave a video decoder and UDP and the profile
   * offers it; its listener (config.mirrorPort) has its own routes (`mirrorRouter`).
   */
  readonly mirror?: MirrorFeature;
  readonly mirrorRouter = new Router();
  /** Video by URL (spec 4.2), where the host has a player and the profile offers it. */
  readonly video?: VideoSession;
  /** Senders' sessions (RTSP SETUP with a binary plist): their event channels and clocks. */
  readonly sessions: Sessions;
  /** Realtime audio (the stream that plays), where the host has a sink and the profile plays audio. */
  readonly audio?: AudioPlayback;
  /** The feature bits advertised (spec 2.3): the profile's, limited to what is implemented. */
  readonly features: bigint;
  /** The dialect the receiver writes; requests are read in any dialect. */
  readonly dialect: Dialect;
  private activityState: ActivityState;
  private readonly connections = new Set<ReceiverConnection>();
  private published: ServiceAdvertisement[] = [];
  private readonly connectionContext: ConnectionContext;
  private readonly mirrorConnectionContext: ConnectionContext;
  /** Who the senders of sessions are, for the events (ports.onEvent). */
  private readonly senders = new SenderDirectory();
  /** Raises a receiver event (ports.onEvent); features get it in their context. */
  readonly announce: Announce = (name, origin, details) => {
    const { onEvent } = this.ports;
    if (!onEvent) return;
    try {
      onEvent(this.senders.event(name, origin, details));
    } catch (error) {
      this.ports.log('error', `event ${name}: the host's handler failed: ${describeError(error)}`);
    }
  };
  /** The access lists (config.allow, config.block), where there are any. */
  readonly access: AccessGate | undefined;
  /** Connections refused since the last log line about them. */
  private readonly refusals = new CountedLog(REFUSAL_LOG_INTERVAL_MS);
  /** Connections closed by a deadline or to make room, by cause, since the last line about them. */
  private readonly closings = new Map<string, CountedLog>();

  constructor(
    config: ReceiverConfig,
    readonly ports: ReceiverPorts,
  ) {
    // Complete and frozen before anything reads it (a copy: the caller's object stays its own).
    this.config = Object.isFrozen(config) ? config : freezeConfig({ ...config, limits: { ...config.limits } });
    const { clock, log, display } = ports;
    this.dialect = DIALECTS[this.config.dialect];
    this.identity = loadOrCreateIdentity(ports.store, ports.random, log, ports.crypto);
    this.features = featureMask(advertisedFeatures(PROFILES[this.config.profile], implementedFeatures(this.config, { display: display !== undefined, player: ports.player !== undefined, mirroring: ports.videoDecoder !== undefined && ports.udp !== undefined, audio: ports.audioSink !== undefined && ports.audioSockets !== undefined })));
    // spec 2.1: gid changes with the activity, not with a restart: it is kept in the store.
    this.deferredWrites = new DeferredWrites(ports.store, this.timers, () => clock.now(), log);
    this.activityState = { activity: 'idle', gid: this.storedGid('idle') ?? this.keepGid('idle', this.randomUuid()) };
    const { limits } = this.config;
    const access = (this.access = this.config.allow.length + this.config.block.length > 0 ? new AccessGate(this.config.allow, this.config.block, { log, now: () => clock.now(), connections: () => this.connections }) : undefined);
    this.connectionContext = {
      log,
      router: this.router,
      limits,
      dialect: this.dialect,
      serverHeader: `${this.dialect.serverProduct}/${this.config.sourceVersion}`,
      wallTime: () => clock.wallTime(),
      now: () => clock.now(),
      // spec 5.2: a password or a PIN the sender must enter closes everything but pairing.
      pairingRequired: this.config.password !== '' || this.config.pinRequired,
      ...((access || ports.onEvent) && {
        screenRequest: (connection: ReceiverConnection, head: RequestHead, open: boolean) => {
          // The events name the sender of a session by what its requests said.
          if (ports.onEvent && connection.sessionId !== undefined) {
            const named = devicesNamed(head)[0];
            this.senders.note(connection.sessionId, connection.addresses.remoteAddress, named === undefined ? undefined : deviceKey(named));
          }
          return access?.screen(connection, head, open);
        },
      }),
      onClosed: (connection) => this.connections.delete(connection),
      nextRequestOrder: () => ++this.requestsSeen,
      // Events a request causes go out after its answer (spec 6; see EventSender.hold).
      holdEvents: (sessionId) => this.events.hold(sessionId),
      senderPresent: (connection) => this.companions(connection.addresses.remoteAddress, connection) > 0,
      logClosed: (cause, message) => this.logClosed(cause, message),
      ...(ports.allocateBytes && { allocateBytes: ports.allocateBytes }),
    };
    this.mirrorConnectionContext = { ...this.connectionContext, router: this.mirrorRouter };
    this.status = { name: this.config.name, activity: this.activityState.activity };
    this.events = new EventSender({ log, mime: this.dialect.mime, reverse: this.reverse, maxSessions: limits.maxEventSessions });
    this.media = new MediaSession({
      log,
      display,
      events: this.events,
      setActivity: (activity) => this.setActivity(activity),
      updateStatus: (change) => this.updateStatus(change),
      announce: this.announce,
    });
    registerInfoRoutes(this.router, this);
    const { timers } = this;
    this.sessions = new Sessions({ clock, timers, log, timingSocket: ports.timingSocket, crypto: ports.crypto, limits, eventPort: this.config.eventPort, announce: this.announce, ...(access && { refusesDevice: (deviceId: string, origin: SessionOrigin) => access.refusesSessionDevice(deviceId, origin.connection, origin.peer) }) });
    const { audioSink, audioSockets } = ports;
    const audio =
      audioSink && audioSockets && this.features & featureMask(['Audio'])
        ? registerAudio(this.router, { log, clock, timers, sink: audioSink, sockets: audioSockets, media: this.media, sessions: this.sessions, crypto: ports.crypto, alacKernel: ports.alacKernel, aacDecoder: ports.aacDecoder, limits, display })
        : undefined;
    this.audio = audio?.playback;
    registerUnservedAudioRoutes(this.router, { announce: audio === undefined });
    registerSessionRoutes(this.router, { log, sessions: this.sessions, mime: this.dialect.mime, maxBodyBytes: limits.maxBodyBytes, audio: audio?.sessionAudio });
    this.pairing = registerPairingRoutes(this.router, { config: this.config, identity: this.identity, clock, timers, log, random: ports.random, store: ports.store, display, crypto: ports.crypto, access, announce: this.announce });
    registerReverseRoute(this.router, {
      log,
      reverse: this.reverse,
      maxReverseConnections: limits.maxReverseConnections,
      maxReverseConnectionsPerAddress: limits.maxReverseConnectionsPerAddress,
      companions: (address) => this.companions(address),
      now: () => clock.now(),
    });
    registerStopRoute(this.router, this.media);
    const pictures = (this.pictures = new PictureBudget(limits.pictureBudgetBytes, ports.freeBytes));
    if (display && this.features & featureMask(['Photo'])) {
      this.photos = registerPhotoRoutes(this.router, { log, display, media: this.media, limits, pictures });
    }
    if (display && this.features & featureMask(['Slideshow'])) {
      this.slideshow = registerSlideshowRoutes(this.router, { clock, timers, log, media: this.media, reverse: this.reverse, mime: this.dialect.mime, limits, pictures });
    }
    const { videoDecoder, udp } = ports;
    if (videoDecoder && udp && this.features & featureMask(MIRRORING_FEATURES)) {
      this.mirror = new MirrorFeature({
        log,
        clock,
        limits,
        dialect: this.dialect,
        media: this.media,
        decoder: videoDecoder,
        udp,
        nalKernel: ports.nalKernel,
        version: this.config.sourceVersion,
        ntpPort: this.config.ntpPort,
      });
      registerMirrorRoutes(this.mirrorRouter, this.mirror);
    }
    if (ports.player && this.features & featureMask(['Video'])) {
      this.video = registerVideoRoutes(this.router, { clock, timers, log, random: ports.random, player: ports.player, media: this.media, mime: this.dialect.mime, limits });
    }
  }

  /** The features' next deadline (monotonic ms): a host arms one timer for it (TimerDriver). */
  pollTimeout(): number | undefined {
    return this.timers.pollTimeout();
  }

  /** Runs the features' deadlines due at `now`. */
  handleTimeout(now: number): void {
    this.timers.handleTimeout(now);
  }

  /** Set by the driver: called whenever a feature sets a deadline, so the driver polls again. */
  get onWake(): () => void {
    return this.timers.onWake;
  }
  set onWake(wake: () => void) {
    this.timers.onWake = wake;
  }

  get activity(): Activity {
    return this.activityState.activity;
  }

  /** The identity the discovery records describe. */
  discoveryIdentity(): DiscoveryIdentity {
    const { config, identity } = this;
    return {
      name: config.name,
      deviceId: config.deviceId,
      model: config.model,
      manufacturer: config.manufacturer,
      serialNumber: config.serialNumber || undefined,
      fv: config.firmwareVersion,
      osvers: config.osVersion,
      srcvers: config.sourceVersion,
      protovers: config.protocolVersion,
      features: this.features,
      flags: flagMask([]),
      passwordRequired: config.password !== '',
      pinRequired: config.pinRequired,
      acl: 0,
      pk: identity.publicKey,
      pi: identity.pairingId,
      psi: identity.systemPairingId,
      vv: 2,
      audio: {
        // spec 2.2: what the audio service takes. Where audio plays: PCM and ALAC, and AAC where
        // the host decodes it; unencrypted streams only (et=1's RSA key is not in the spec), and
        // the metadata the screen shows where there is one. Without audio the plainest forms.
        codecs: this.audio ? (this.ports.aacDecoder ? [0, 1, 2] : [0, 1]) : [0],
        encryptionTypes: [0],
        metadataTypes: this.audio && this.ports.display?.showNowPlaying ? [0, 1, 2] : [],
      },
    };
  }

  /** The state-dependent discovery fields of the current activity (spec 2.1). */
  activityFields(): ActivityFields {
    return activityFields(this.activityState);
  }

  /** The services to publish now (their TXT records follow the activity). */
  services(): ServiceAdvertisement[] {
    return discoveryServices(this.discoveryIdentity(), activityFields(this.activityState), {
      dialect: this.dialect,
      port: this.config.port,
      audioService: PROFILES[this.config.profile].publishesRaop,
    });
  }

  /** Publishes the services, and shows the name and activity on the screen. */
  start(): void {
    this.published = this.services();
    for (const service of this.published) this.ports.advertiser?.publish(service);
    this.ports.display?.showStatus({ ...this.status });
  }

  /** Changes what the screen's status line shows (a slideshow's state) and shows it. */
  updateStatus(change: Partial<DisplayStatus>): void {
    Object.assign(this.status, change);
    this.ports.display?.showStatus({ ...this.status });
  }

  /** Arrival order of the newest request head (Request.order). */
  get lastRequestOrder(): number {
    return this.requestsSeen;
  }

  /**
   * Moves to another activity (spec 2.1): gid, igl, gcgl, pgid, pgcgl and flag bit 17 change, and
   * the TXT records are published again.
   */
  setActivity(activity: Activity): void {
    const next = changeActivity(this.activityState, activity, () => this.randomUuid());
    if (next === this.activityState) return;
    this.activityState = next;
    this.deferredWrites.write(GID_KEY, gidRecord(activity, next.gid));
    this.ports.log('info', `activity: ${activity} (gid ${next.gid})`);
    this.published = this.services();
    for (const service of this.published) this.ports.advertiser?.update(service);
    this.updateStatus({ activity });
  }

  /**
   * A new sans-I/O connection (DESIGN 6), or undefined when it cannot be taken (the caller
   * answers BUSY_RESPONSE and closes the transport). At maxConnections, or at
   * maxConnectionsPerAddress for its address, a connection doing nothing useful makes room
   * (connection/admission.ts says which); with none the new one is refused. The caller feeds the connection bytes and
   * time and polls it; `accept` does that with a ConnectionDriver.
   */
  open(addresses: ConnectionAddresses, now: number): ReceiverConnection | undefined {
    return this.openWith(this.connectionContext, addresses, now);
  }

  /**
   * A new connection of the mirroring listener (spec 4.4, config.mirrorPort): the same limits
   * as `open`, its own routes (GET /stream.xml, POST /stream). Undefined when the receiver does
   * not mirror (the host does not listen then) or cannot take it.
   */
  openMirror(addresses: ConnectionAddresses, now: number): ReceiverConnection | undefined {
    if (!this.mirror) return undefined;
    return this.openWith(this.mirrorConnectionContext, addresses, now);
  }

  /** Takes a connection of the mirroring listener and drives it (see accept). */
  acceptMirror(port: Connection): ReceiverConnection | undefined {
    return this.acceptWith(port, (addresses, now) => this.openMirror(addresses, now));
  }

  private openWith(context: ConnectionContext, addresses: ConnectionAddresses, now: number): ReceiverConnection | undefined {
    if (this.refusesAddress(addresses)) return undefined;
    const { limits } = this.config;
    const counts = countByAddress(this.connections);
    const limit = crowding(counts, this.connections.size, addresses.remoteAddress, limits);
    if (limit) {
      // The policy (whose connection, which one) is admission.ts's.
      const victim = chooseVictim(this.connections, counts, addresses.remoteAddress, limit);
      if (!victim) {
        this.refused(addresses, now, limit);
        return undefined;
      }
      const why = `${OCCUPATIONS[victim.occupation].words}: makes room for ${hostPort(addresses.remoteAddress, addresses.remotePort)} (limits.${limit})`;
      this.logClosed(`room ${limit}`, `${victim.peer} closed, ${why}`, 'info');
      victim.close(why);
    }
    const connection = new ReceiverConnection(addresses, context, now);
    this.connections.add(connection);
    return connection;
  }

  /**
   * Takes a connection of the event listener (config.eventPort) for the session waiting for its
   * event channel, and drives it; closes it when no session of its address is waiting.
   */
  acceptEvent(port: Connection): void {
    if (this.refusesAddress(port)) {
      port.close();
      return;
    }
    const channel = this.sessions.acceptEventChannel(hostPort(port.remoteAddress, port.remotePort), port.remoteAddress);
    if (!channel) {
      port.close();
      return;
    }
    new ConnectionDriver(channel, port, this.ports.clock);
  }

  /** Takes a host connection and drives it; at the limits with none idle, answers 503 and closes it. */
  accept(port: Connection): ReceiverConnection | undefined {
    return this.acceptWith(port, (addresses, now) => this.open(addresses, now));
  }

  private acceptWith(port: Connection, open: (addresses: ConnectionAddresses, now: number) => ReceiverConnection | undefined): ReceiverConnection | undefined {
    const { clock } = this.ports;
    // A blocked address is closed at once, unanswered (not 503: it should not come back).
    if (this.refusesAddress(port)) {
      port.close();
      return undefined;
    }
    const connection = open(port, clock.now());
    if (!connection) {
      port.write(busyResponse(this.connectionContext.serverHeader, clock.wallTime()));
      port.close();
      return undefined;
    }
    new ConnectionDriver(connection, port, clock);
    return connection;
  }

  /** Whether the access lists refuse a connection from this address (AccessGate logs it). */
  private refusesAddress(addresses: Pick<ConnectionAddresses, 'remoteAddress' | 'remotePort'>): boolean {
    return this.access?.refusesConnection(addresses.remoteAddress, hostPort(addresses.remoteAddress, addresses.remotePort)) === true;
  }

  /**
   * Counts a refused connection; logs the first at once and then one line per
   * REFUSAL_LOG_INTERVAL_MS with the count (a flood must not flood the log too).
   */
  private refused(addresses: ConnectionAddresses, now: number, limit: string): void {
    const count = this.refusals.note(now);
    if (count === 0) return;
    this.ports.log('warn', `${count === 1 ? `${addresses.remoteAddress}:${addresses.remotePort} refused` : `${count} connections refused in the last ${REFUSAL_LOG_INTERVAL_MS / 1000} s, the last from ${addresses.remoteAddress}`} (503): ${this.connections.size} connections open, none that may make room (limits.${limit})`);
  }

  /**
   * Logs a connection closed by a deadline or to make room: the first of each cause at once, then
   * one line per CLOSE_LOG_INTERVAL_MS with the count (each connection's own debug line names
   * it too: `closing: <why>`).
   */
  private logClosed(cause: string, message: string, level: 'info' | 'warn' = 'warn'): void {
    let counted = this.closings.get(cause);
    if (!counted) this.closings.set(cause, (counted = new CountedLog(CLOSE_LOG_INTERVAL_MS)));
    const count = counted.note(this.ports.clock.now());
    if (count === 0) return;
    this.ports.log(level, count === 1 ? message : `${count} connections closed in the last ${CLOSE_LOG_INTERVAL_MS / 1000} s (${cause}), the last: ${message}`);
  }

  /** Connections of `address` open other than reverse ones (and other than `except`). */
  private companions(address: string, except?: ReceiverConnection): number {
    let count = 0;
    for (const connection of this.connections) {
      if (connection !== except && connection.addresses.remoteAddress === address && connection.mode !== 'reverse' && connection.mode !== 'closed') count++;
    }
    return count;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Withdraws the services (goodbye packets) and closes every connection. */
  stop(): void {
    for (const service of this.published) this.ports.advertiser?.withdraw(service);
    this.published = [];
    // The slideshow's and the video's senders hear `stopped` before their connections close.
    this.slideshow?.stop('receiver stopping');
    this.mirror?.close('receiver stopping');
    this.video?.stop('receiver stopping');
    this.sessions.endAll('receiver stopping');
    this.reverse.closeAll('receiver stopping');
    for (const connection of [...this.connections]) connection.close('receiver stopping');
    this.deferredWrites.flush();
  }

  /**
   * The group id an earlier start kept (spec 2.1 gid), when it was the gid of `activity` (a
   * receiver stopped while receiving starts idle: another activity, so another gid).
   */
  private storedGid(activity: Activity): string | undefined {
    const stored = this.ports.store.get(GID_KEY);
    if (!stored) return undefined;
    const [kept, gid] = utf8Decode(stored, false).split(' ');
    return kept === activity && /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i.test(gid ?? '') ? gid : undefined;
  }

  /** Keeps the start's group id for the next start; a failed write costs only a new gid then, so it is logged. */
  private keepGid(activity: Activity, gid: string): string {
    try {
      const { store } = this.ports;
      (store.putUnflushed ?? store.put).call(store, GID_KEY, gidRecord(activity, gid));
    } catch (error) {
      this.ports.log('warn', `group id not kept (the next start makes a new one): ${describeError(error)}`);
    }
    return gid;
  }

  private randomUuid(): string {
    return uuidFromBytes(this.ports.random(16));
  }
}
