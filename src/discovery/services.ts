// The two advertised services (spec 1.2, 2.1, 2.2): type, instance name, port and TXT record, for the Advertiser port.

import { DIALECTS, type Dialect, type DialectName } from '../dialect';
import type { ActivityFields } from './activity';
import { audioInstanceName, LABEL_MAX, mediaInstanceName } from './dnssd-names';
import { audioServiceTxt, mediaServiceTxt, type DiscoveryIdentity } from './txt';

export { audioInstanceName, mediaInstanceName };

/** RFC 6763 4.1.1: an instance name is at most 63 bytes of UTF-8 (one DNS label). */
export const INSTANCE_NAME_MAX = LABEL_MAX;

/**
 * The usual port of the HTTP/RTSP service (spec 1.4 names only "the advertised port"; real
 * receivers listen on 7000), advertised by mDNS; senders try it when told only a host.
 */
export const CONTROL_PORT = 7000;

/** spec 2.2: the audio service type carries no maker name, so it is the same in every dialect. */
export const AUDIO_SERVICE_TYPE = '_raop._tcp';

/** One DNS-SD service to publish. */
export interface ServiceAdvertisement {
  /** Service type, e.g. `_vendorplay._tcp`. */
  readonly type: string;
  /** Instance name (the first label of the service instance name). */
  readonly name: string;
  readonly port: number;
  readonly txt: [string, string][];
}

export interface ServiceOptions {
  /** The dialect whose media service type is advertised (DESIGN 5). */
  dialect: DialectName | Dialect;
  /** Port of the HTTP listener (spec 2.1: the advertised port). */
  port: number;
  /** Port of the RTSP listener; defaults to `port` (one listener serving both). */
  audioPort?: number;
  /**
   * Whether to publish `_raop._tcp` too (default true). spec 2.3 bit 30 (RAOP) says a sender
   * that sees it may use the media service's port instead, but older senders only browse
   * `_raop._tcp` for audio.
   */
  audioService?: boolean;
}

/** The services to publish for the current activity: the media service, then the audio service. */
export function discoveryServices(
  identity: DiscoveryIdentity,
  activity: ActivityFields,
  options: ServiceOptions,
): ServiceAdvertisement[] {
  const dialect = typeof options.dialect === 'string' ? DIALECTS[options.dialect] : options.dialect;
  const services: ServiceAdvertisement[] = [
    {
      type: dialect.serviceType,
      name: mediaInstanceName(identity),
      port: options.port,
      txt: mediaServiceTxt(identity, activity),
    },
  ];
  if (options.audioService ?? true) {
    services.push({
      type: AUDIO_SERVICE_TYPE,
      name: audioInstanceName(identity),
      port: options.audioPort ?? options.port,
      txt: audioServiceTxt(identity, activity),
    });
  }
  return services;
}
