// Decodes a property list in either format, choosing by the binary magic as plistlib does.

import { decodeBinaryPlist } from './binary';
import type { PlistLimits, PlistValue } from './value';
import { decodeXmlPlist } from './xml';

interface PlistDecodeOptions {
  /** Overrides of DEFAULT_PLIST_LIMITS; the input is untrusted. */
  limits?: Partial<PlistLimits>;
  /** Decode every real as PlistReal, so an integral real stays distinguishable from an integer. */
  exactReals?: boolean;
}

// "bplist": any version goes to the binary reader, so `bplist01` gets a clear version error
// there instead of an XML syntax error.
const BINARY_PREFIX = [0x62, 0x70, 0x6c, 0x69, 0x73, 0x74];

function hasBinaryPrefix(bytes: Uint8Array): boolean {
  if (bytes.length < BINARY_PREFIX.length) return false;
  for (let i = 0; i < BINARY_PREFIX.length; i++) if (bytes[i] !== BINARY_PREFIX[i]) return false;
  return true;
}

/**
 * Decodes a binary plist (magic `bplist00`, application/x-vendor-binary-plist) or an XML plist
 * (text/x-vendor-plist+xml and application/x-vendor-plist), whichever `bytes` holds. Senders do
 * not always label bodies faithfully, so the content decides, not the media type.
 */
export function decodePlist(bytes: Uint8Array, options: PlistDecodeOptions = {}): PlistValue {
  return hasBinaryPrefix(bytes) ? decodeBinaryPlist(bytes, options) : decodeXmlPlist(bytes, options);
}
