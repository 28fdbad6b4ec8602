// The Store port (src/platform.ts) on Moddable's `preference` module. Pure: the module is handed
// in (main.ts passes it), so the portable suites test this file with a map.
//
// On ESP32 preferences are ESP-IDF NVS entries: keys (and the domain) at most 15 characters,
// values at most 4000 bytes (Moddable documentation, files.md "class Preference"). NVS writes
// one entry atomically (the old value or the new one survives a power cut), which is the
// Store's promise, so a record is one entry: a value over the limit is refused with an error
// that names it, never split across entries that could be torn apart.

import { equal } from '../../src/bytes';
import type { Store } from '../../src/platform';

/** What this file uses of Moddable's `Preference` (its static methods). */
export interface PreferenceBackend {
  get(domain: string, key: string): string | boolean | number | ArrayBuffer | undefined;
  set(domain: string, key: string, value: ArrayBuffer): void;
  delete(domain: string, key: string): void;
}

/** ESP32 NVS: longest key and domain name (characters). */
export const PREFERENCE_KEY_MAX = 15;
/** ESP32 NVS: largest value (bytes). */
export const PREFERENCE_VALUE_MAX = 4000;
/** The preference domain the receiver keeps its records in. */
export const PREFERENCE_DOMAIN = 'vendorplay';

export class StoreError extends Error {
  override name = 'StoreError';
}

function checkKey(key: string): void {
  if (key.length === 0 || key.length > PREFERENCE_KEY_MAX) {
    throw new StoreError(`store key "${key}" is ${key.length} characters; preferences (ESP32 NVS) take 1 to ${PREFERENCE_KEY_MAX}`);
  }
}

/** A Store whose records are preferences in `domain`, each one value of at most 4000 bytes. */
export function preferenceStore(preference: PreferenceBackend, domain = PREFERENCE_DOMAIN): Store {
  if (domain.length === 0 || domain.length > PREFERENCE_KEY_MAX) {
    throw new StoreError(`preference domain "${domain}" is ${domain.length} characters; ESP32 NVS takes 1 to ${PREFERENCE_KEY_MAX}`);
  }
  return {
    get(key) {
      checkKey(key);
      const value = preference.get(domain, key);
      // Anything but bytes under our domain was not written by this Store.
      if (!(value instanceof ArrayBuffer)) return undefined;
      return new Uint8Array(value.slice(0));
    },
    put(key, value) {
      checkKey(key);
      if (value.length > PREFERENCE_VALUE_MAX) {
        throw new StoreError(`store record "${key}" is ${value.length} bytes; a preference (ESP32 NVS) holds at most ${PREFERENCE_VALUE_MAX}`);
      }
      // Flash wears and an NVS commit is slow: a record that holds these bytes is not written.
      const stored = preference.get(domain, key);
      if (stored instanceof ArrayBuffer && equal(new Uint8Array(stored), value)) return;
      // A copy of exactly the record's bytes (the view may be part of a larger buffer).
      preference.set(domain, key, value.slice().buffer);
    },
    delete(key) {
      checkKey(key);
      preference.delete(domain, key);
    },
  };
}
