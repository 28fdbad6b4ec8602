// The discovery module (spec 2.1 to 2.5, 2.11): feature bits, status flags, activity, TXT records, device classes.

export { DiscoveryError } from './error';
export {
  FEATURE_BITS,
  featureMask,
  featureNames,
  featuresDecimal,
  featuresInteger,
  featuresText,
  hasFeature,
  parseFeatures,
  type FeatureBit,
  type FeatureName,
} from './features';
export {
  FLAG_BITS,
  STATUS_FLAGS,
  flagMask,
  flagNames,
  flagsText,
  hasFlag,
  parseFlags,
  withFlag,
  type FlagName,
  type StatusFlag,
} from './flags';
export {
  ACTIVITY_TABLE,
  activityFields,
  activityRow,
  changeActivity,
  type Activity,
  type ActivityFields,
  type ActivityRow,
  type ActivityState,
} from './activity';
export {
  AUDIO_CODECS,
  ENCRYPTION_TYPES,
  METADATA_TYPES,
  metadataTypesFor,
  type AudioCode,
  type MetadataType,
} from './audio-codes';
export {
  TXT_STRING_MAX,
  parseTxtBytes,
  txtBytes,
  txtGet,
  type TxtEntry,
  type TxtRecord,
  type TxtSource,
} from './txt-bytes';
export {
  AUDIO_TXT_KEYS,
  MEDIA_TXT_KEYS,
  audioServiceTxt,
  mediaServiceTxt,
  parseMacAddress,
  statusFlags,
  type AudioServiceInfo,
  type AudioTxtKey,
  type DiscoveryIdentity,
  type MediaTxtKey,
  type TxtKey,
} from './txt';
export {
  AUDIO_SERVICE_TYPE,
  CONTROL_PORT,
  INSTANCE_NAME_MAX,
  audioInstanceName,
  discoveryServices,
  mediaInstanceName,
  type ServiceAdvertisement,
  type ServiceOptions,
} from './services';
export { MODEL_PREFIXES, classifyDevice, type DeviceClass, type DeviceClassification } from './classify';
export {
  LABEL_MAX,
  LOCAL_DOMAIN,
  hostLabel,
  hostLabels,
  instanceDomain,
  instanceLabels,
  parseServiceType,
  sameLabel,
  sameName,
  serviceDomain,
  serviceLabels,
  type ServiceTypeParts,
} from './dnssd-names';
export {
  CACHE_FLUSH_BIT,
  DNS_CLASS_IN,
  DNS_TYPES,
  MDNS_PORT,
  QU_BIT,
  answerQuery,
  readQuery,
  type Query,
  type QueryOrigin,
  type Question,
  type Zone,
  type ZoneService,
} from './mdns-unicast';
export { MdnsAdvertiser, logEvent as logMdnsEvent, type MdnsAdvertiserOptions } from './mdns/mdns-advertiser';
export { MdnsResponder, type MdnsDatagram, type MdnsEvent, type MdnsResponderOptions } from './mdns/mdns-responder';
export { MDNS_GROUP, MDNS_LIMITS, MDNS_TIMING, MDNS_TTL } from './mdns/mdns-limits';
export { DNS_CLASS, DNS_FLAGS, MessageWriter, readMessage, type DnsMessage, type DnsQuestion, type DnsReadResult, type DnsRecord } from './mdns/dns-message';
export { type HostAddresses } from './mdns/mdns-records';
