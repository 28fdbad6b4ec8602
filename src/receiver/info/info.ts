// The information endpoints: GET /server-info (spec 2.5), RTSP GET /info (2.11), RTSP OPTIONS.

import type { Dialect } from '../../dialect';
import { AUDIO_SERVICE_TYPE, featuresInteger, statusFlags, txtBytes, type Activity, type ActivityFields, type DiscoveryIdentity, type ServiceAdvertisement } from '../../discovery';
import { HEADER, STATUS } from '../../http';
import { encodeBinaryPlist } from '../../plist/binary';
import { real, type PlistDict } from '../../plist/value';
import { encodeXmlPlistBytes } from '../../plist/xml';
import type { ReceiverConfig } from '../config';
import { hostPort } from '../connection/connection';
import type { ReceiverIdentity } from '../identity';
import { ReplyCache } from '../connection/reply-cache';
import type { Request, Response, Router } from '../connection/router';

/** What the information endpoints describe: the receiver's configuration, identity and state. */
export interface InfoContext {
  readonly config: Readonly<ReceiverConfig>;
  readonly identity: ReceiverIdentity;
  /** The feature bits advertised (spec 2.3). */
  readonly features: bigint;
  readonly dialect: Dialect;
  /** The activity (spec 2.1): the /info record follows it. */
  readonly activity: Activity;
  /** The services published now (their TXT records follow the activity). */
  services(): ServiceAdvertisement[];
  discoveryIdentity(): DiscoveryIdentity;
  activityFields(): ActivityFields;
}

/** Version of the protocol SDK named in /info `sdk` (spec 2.11; real receivers send 2.0.2). */
const SDK_VERSION = '2.0.2';

/** spec 2.5: the server information record; its values equal the discovery record's. */
export function serverInfo(receiver: InfoContext): PlistDict {
  const { config } = receiver;
  return {
    deviceid: config.deviceId,
    features: featuresInteger(receiver.features),
    model: config.model,
    protovers: config.protocolVersion,
    srcvers: config.sourceVersion,
  };
}

/** spec 2.11: the audio-service information record, with the raw TXT bytes of both services. */
function audioServiceInfo(receiver: InfoContext, request: Pick<Request, 'remoteAddress' | 'remotePort'>): PlistDict {
  const { config, identity } = receiver;
  const services = receiver.services();
  const media = services.find((service) => service.type === receiver.dialect.serviceType);
  const audio = services.find((service) => service.type === AUDIO_SERVICE_TYPE);
  const flags = statusFlags(receiver.discoveryIdentity(), receiver.activityFields());
  return {
    // spec 2.2: the meaning of PTPInfo is not shown; real receivers describe their PTP stack
    // there. This receiver has no PTP clock, and says so with an empty string.
    PTPInfo: '',
    build: config.osVersion,
    deviceID: config.deviceId,
    features: featuresInteger(receiver.features),
    // Not shown in the spec; real receivers start at -20 dB (the volume scale runs -30 to 0).
    initialVolume: real(-20),
    macAddress: config.deviceId,
    firmwareBuildDate: config.firmwareBuildDate,
    firmwareRevision: config.firmwareVersion,
    // Not shown in the spec; real receivers that accept keep-alives say true to both.
    keepAliveLowPower: true,
    keepAliveSendStatsAsBody: true,
    manufacturer: config.manufacturer,
    model: config.model,
    name: config.name,
    nameIsFactoryDefault: config.nameIsFactoryDefault,
    pi: identity.pairingId,
    pk: identity.publicKey,
    playbackCapabilities: { supportsFPSSecureStop: false, supportsUIForAudioOnlyContent: true },
    protocolVersion: config.protocolVersion,
    psi: identity.systemPairingId,
    senderAddress: hostPort(request.remoteAddress, request.remotePort),
    sdk: `${receiver.dialect.sdkProduct};${SDK_VERSION}`,
    sourceVersion: config.sourceVersion,
    statusFlags: flags,
    txtAirPlay: txtBytes(media ? media.txt : []),
    txtRAOP: txtBytes(audio ? audio.txt : []),
    // Not shown in the spec; 4 is what real receivers with software volume send.
    volumeControlType: 4,
    vv: 2,
  };
}

export function registerInfoRoutes(router: Router, receiver: InfoContext): void {
  const mime = receiver.dialect.mime;
  // Each reply is built once per state it depends on (reply-cache.ts); the Response objects
  // are shared between requests, which only read them.
  const serverInfoReplies = new ReplyCache<Response>(1);
  const optionsReplies = new ReplyCache<Response>(1);
  router.add({
    protocol: 'HTTP',
    method: 'GET',
    path: '/server-info',
    maxBodyBytes: 0,
    // The record depends only on these (see serverInfo).
    handler: (): Response => {
      const { config } = receiver;
      return serverInfoReplies.get([config.deviceId, receiver.features, config.model, config.protocolVersion, config.sourceVersion], 'server-info', () => ({
        reusable: true,
        status: STATUS.ok,
        headers: { [HEADER.contentType]: mime.plistXml },
        body: encodeXmlPlistBytes(serverInfo(receiver)),
      }));
    },
  });
  const infoReplies = new ReplyCache<Response>(receiver.config.limits.infoRepliesKept);
  router.add({
    // RTSP/1.0 as spec 2.11 shows it; some senders and scripts fetch http://host:port/info, so
    // HTTP/1.1 too: the same handler, the status line in the request's protocol.
    method: 'GET',
    path: '/info',
    // spec 5.2: answered before pairing, like real receivers (senders read it to decide how to pair).
    open: true,
    // Some senders send a small binary plist asking for particular keys; all keys are answered.
    maxBodyBytes: 16 * 1024,
    // The record changes with the activity (status flags, gid and the TXT records, spec 2.1)
    // and the port (TXT); the rest is fixed once the receiver is built. senderAddress differs per
    // connection: one reply per sender address and port, up to limits.infoRepliesKept.
    handler: (request): Response =>
      infoReplies.get([receiver.activity, receiver.activityFields().gid, receiver.config.port, receiver.config.name], hostPort(request.remoteAddress, request.remotePort), () => ({
        reusable: true,
        status: STATUS.ok,
        headers: { [HEADER.contentType]: mime.plistBinary },
        body: encodeBinaryPlist(audioServiceInfo(receiver, request)),
      })),
  });
  router.add({
    protocol: 'RTSP',
    method: 'OPTIONS',
    path: '*',
    open: true,
    maxBodyBytes: 0,
    // RFC 2326 10.1: Public lists the methods the receiver serves (only those it really does).
    // Routes are all added while the Receiver is built, before any request: the table, and so
    // the reply, is fixed for the router's life.
    handler: (): Response => optionsReplies.get([router], 'options', () => ({ reusable: true, status: STATUS.ok, headers: { [HEADER.public]: router.methods('RTSP').join(', ') } })),
  });
}
