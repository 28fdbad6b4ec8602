// The receiver: configuration, identity, activity, advertised services, routes and connections.
// Hosts create one, hand it accepted connections, and give it the ports it needs.

import { DIALECTS, type Dialect } from '../dialect';
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
import type { Advertiser, Clock, Connection, Display, DisplayStatus, Logger, RandomSource, Store } from '../platform';
import { uuidFromBytes } from '../uuid';
import type { ReceiverConfig } from './config';
import { ReceiverConnection, type ConnectionContext } from './connection';
import { loadOrCreateIdentity, type ReceiverIdentity } from './identity';
import { registerInfoRoutes } from './info';
import { EventSender } from './events';
import { ReverseRegistry } from './reverse';
import { registerReverseRoute } from './reverse-route';
import type { CryptoKernels } from '../pairing/crypto-kernels';
import { registerPairingRoutes, type PairingService } from './pairing-routes';
import { registerPhotoRoutes, type PhotoFeature } from './photo';
import type { Slideshow } from './slideshow';
import { registerSlideshowRoutes } from './slideshow-routes';
import { advertisedFeatures, implementedFeatures, PROFILES } from './profiles';
import { Router } from './router';
import { registerStopRoute } from './stop-route';

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
  /** Pairing's and the channel's cryptography (natives on XS, WebAssembly frames on Node); portable @noble when omitted. */
  readonly crypto?: CryptoKernels;
}

/** A feature's part of POST /stop: the sender's session, and the stop request's Request.order. */
export type StopHandler = (sessionId: string | undefined, order: number) => void | Promise<void>;

export class Receiver {
  readonly router = new Router();
  /** Reverse connections of every sender (spec 1.6), by session and purpose. */
  readonly reverse = new ReverseRegistry();
  /** Events to senders over their reverse connections (spec 6). */
  readonly events = new EventSender(this);
  /** What POST /stop stops (spec 3, 4.1): each feature with a session registers here. */
  private readonly stopHandlers: StopHandler[] = [];
  /** Photos (spec 4.1), when the receiver has a screen and its profile offers them. */
  readonly photos: PhotoFeature | undefined;
  /** What the screen's status line shows. */
  private readonly status: DisplayStatus;
  /** Request heads seen, over all connections (Request.order). */
  private requestsSeen = 0;
  readonly identity: ReceiverIdentity;
  /** Pairing (spec 5): the paired senders, pair-setup and pair-verify. */
  readonly pairing: PairingService;
  /** The slideshow (spec 3, 4.1), where there is a screen to show it. */
  readonly slideshow?: Slideshow;
  /** The feature bits advertised (spec 2.3): the profile's, limited to what is implemented. */
  readonly features: bigint;
  /** The dialect the receiver writes; requests are read in any dialect. */
  readonly dialect: Dialect;
  private activityState: ActivityState;
  private readonly connections = new Set<ReceiverConnection>();
  private published: ServiceAdvertisement[] = [];
  private readonly connectionContext: ConnectionContext;

  constructor(
    readonly config: ReceiverConfig,
    readonly ports: ReceiverPorts,
  ) {
    this.dialect = DIALECTS[config.dialect];
    this.identity = loadOrCreateIdentity(ports.store, ports.random, ports.log);
    this.features = featureMask(advertisedFeatures(PROFILES[config.profile], implementedFeatures(config, ports.display !== undefined)));
    this.activityState = { activity: 'idle', gid: this.randomUuid() };
    this.connectionContext = {
      clock: ports.clock,
      log: ports.log,
      router: this.router,
      limits: config.limits,
      dialect: this.dialect,
      serverHeader: `${this.dialect.serverProduct}/${config.sourceVersion}`,
      // spec 5.2: a password or a PIN the sender must enter closes everything but pairing.
      pairingRequired: config.password !== '' || config.pinRequired,
      reverseLimits: { requestTimeoutMs: config.limits.reverseRequestTimeoutMs, maxBodyBytes: config.limits.maxReverseBodyBytes },
      onClosed: (connection) => this.connections.delete(connection),
      nextRequestOrder: () => ++this.requestsSeen,
      // Events a request causes go out after its answer (spec 6; see EventSender.hold).
      holdEvents: (sessionId) => this.events.hold(sessionId),
    };
    this.status = { name: config.name, activity: this.activityState.activity };
    registerInfoRoutes(this);
    this.pairing = registerPairingRoutes(this, ports.display);
    registerReverseRoute(this);
    registerStopRoute(this);
    this.photos = ports.display && this.features & featureMask(['Photo']) ? registerPhotoRoutes(this, ports.display) : undefined;
    if (ports.display && this.features & featureMask(['Slideshow'])) this.slideshow = registerSlideshowRoutes(this);
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
        // spec 2.2: what the audio service would take. The receiver plays no audio yet, so it
        // names the plainest forms: PCM, no encryption, and no metadata.
        codecs: [0],
        encryptionTypes: [0],
        metadataTypes: [],
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
    this.ports.log('info', `activity: ${activity} (gid ${next.gid})`);
    this.published = this.services();
    for (const service of this.published) this.ports.advertiser?.update(service);
    this.updateStatus({ activity });
  }

  /** Registers something POST /stop stops (a photo session, a slideshow, video playback). */
  onStop(handler: StopHandler): void {
    this.stopHandlers.push(handler);
  }

  /**
   * Stops every session feature (POST /stop, spec 3); a failing handler is logged, the others
   * still run. `order` is the stop request's Request.order (requests asked before it must not
   * start anything when they finish later); the newest head's when omitted.
   */
  async stopSessions(sessionId: string | undefined, order = this.requestsSeen): Promise<void> {
    for (const handler of this.stopHandlers) {
      try {
        await handler(sessionId, order);
      } catch (error) {
        this.ports.log('error', `stop handler failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** Takes a new connection, or closes it at once when the connection limit is reached. */
  accept(port: Connection): ReceiverConnection | undefined {
    const { limits } = this.config;
    if (this.connections.size >= limits.maxConnections) {
      this.ports.log('warn', `${port.remoteAddress}:${port.remotePort} refused: ${limits.maxConnections} connections open (limits.maxConnections)`);
      port.close();
      return undefined;
    }
    const connection = new ReceiverConnection(port, this.connectionContext);
    this.connections.add(connection);
    return connection;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Withdraws the services (goodbye packets) and closes every connection. */
  stop(): void {
    for (const service of this.published) this.ports.advertiser?.withdraw(service);
    this.published = [];
    // The slideshow's sender hears `stopped` before its connections close.
    this.slideshow?.stop('receiver stopping');
    this.reverse.closeAll('receiver stopping');
    for (const connection of [...this.connections]) connection.close('receiver stopping');
  }

  private randomUuid(): string {
    return uuidFromBytes(this.ports.random(16));
  }
}
