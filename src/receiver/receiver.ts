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
import type { Advertiser, Clock, Connection, Logger, RandomSource, Store } from '../platform';
import { uuidFromBytes } from '../uuid';
import type { ReceiverConfig } from './config';
import { ReceiverConnection, type ConnectionContext } from './connection';
import { loadOrCreateIdentity, type ReceiverIdentity } from './identity';
import { registerInfoRoutes } from './info';
import { advertisedFeatures, PROFILES } from './profiles';
import { Router } from './router';

/** The ports a receiver uses. The advertiser is optional (`--no-mdns`). */
export interface ReceiverPorts {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly store: Store;
  readonly log: Logger;
  readonly advertiser?: Advertiser;
}

export class Receiver {
  readonly router = new Router();
  readonly identity: ReceiverIdentity;
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
    this.features = featureMask(advertisedFeatures(PROFILES[config.profile]));
    this.activityState = { activity: 'idle', gid: this.randomUuid() };
    this.connectionContext = {
      clock: ports.clock,
      log: ports.log,
      router: this.router,
      limits: config.limits,
      dialect: this.dialect,
      inputDialects: Object.values(DIALECTS),
      serverHeader: `${this.dialect.serverProduct}/${config.sourceVersion}`,
      onClosed: (connection) => this.connections.delete(connection),
    };
    registerInfoRoutes(this);
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

  /** Publishes the services. */
  start(): void {
    this.published = this.services();
    for (const service of this.published) this.ports.advertiser?.publish(service);
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
    for (const connection of [...this.connections]) connection.close('receiver stopping');
  }

  private randomUuid(): string {
    return uuidFromBytes(this.ports.random(16));
  }
}
