// Derived device classes of spec 2.1: what a TXT record says a receiver is, and whether it can be remote controlled.

import { DiscoveryError } from './error';
import { hasFeature, parseFeatures } from './features';
import { hasFlag, parseFlags } from './flags';
import { txtGet, type TxtSource } from './txt-bytes';

export type DeviceClass = 'TV device' | 'speaker appliance' | 'ThirdPartySpeaker' | 'Unknown';

export interface DeviceClassification {
  readonly class: DeviceClass;
  /** spec 2.1 CanBeRemoteControlled: SupportsBufferedAudio set and PINRequired not set. */
  readonly canBeRemoteControlled: boolean;
}

/**
 * Model prefixes of the classes that spec 2.1 derives from the model. The spec replaces them
 * with words ("AppleTV-style prefix for set-top units", "the smart-speaker prefix"); real
 * devices write `AppleTV<n>,<m>` for set-top units and `AudioAccessory<n>,<m>` for smart
 * speakers. A model string is the device's own name for itself, not a dialect identifier
 * (src/dialect.ts), so these prefixes are read the same whatever dialect is configured.
 * Matching is case-sensitive, as "starts with" reads.
 */
export const MODEL_PREFIXES: readonly { readonly class: DeviceClass; readonly prefix: string }[] = [
  { class: 'TV device', prefix: 'AppleTV' },
  { class: 'speaker appliance', prefix: 'AudioAccessory' },
];

/**
 * Classifies a receiver from its TXT record (spec 2.1), the rules tried in the spec's order:
 * set-top model prefix, smart-speaker model prefix, then ThirdPartySpeaker when feature
 * HasUnifiedAdvertiserInfo (26) or SupportsUnifiedPairSetupAndVendorAuth (51) is set, else
 * Unknown. Reads either service's record: model or am, features or ft, flags or sf (the
 * audio service repeats them under those keys). A missing features or flags value counts as
 * zero; a malformed one throws the DiscoveryError of parseFeatures or parseFlags.
 */
export function classifyDevice(record: TxtSource): DeviceClassification {
  const model = text(record, 'model') ?? text(record, 'am') ?? '';
  const featuresValue = text(record, 'features') ?? text(record, 'ft');
  const flagsValue = text(record, 'flags') ?? text(record, 'sf');
  const features = featuresValue === undefined ? 0n : parseFeatures(featuresValue);
  const flags = flagsValue === undefined ? 0 : parseFlags(flagsValue);

  let deviceClass: DeviceClass = 'Unknown';
  const byModel = MODEL_PREFIXES.find((entry) => model.startsWith(entry.prefix));
  if (byModel) deviceClass = byModel.class;
  else if (
    hasFeature(features, 'HasUnifiedAdvertiserInfo') ||
    hasFeature(features, 'SupportsUnifiedPairSetupAndVendorAuth')
  ) {
    deviceClass = 'ThirdPartySpeaker';
  }
  return {
    class: deviceClass,
    canBeRemoteControlled: hasFeature(features, 'SupportsBufferedAudio') && !hasFlag(flags, 'PINRequired'),
  };
}

function text(record: TxtSource, key: string): string | undefined {
  const value = txtGet(record, key);
  if (value === null) throw new DiscoveryError(`txt: ${key} has no value`);
  return value;
}
