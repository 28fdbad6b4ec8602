// Fuzz campaign of the session SETUP reader (src/receiver/session/session-setup.ts): the bodies
// senders send (pyatv's session keys, stream requests), valid and mutated. It may throw only a
// SessionRequestError, and a valid body unchanged is read. Portable: ECMAScript only.

import { encodeBinaryPlist, type PlistDict } from '../../src/plist';
import { parseSetup, SessionRequestError } from '../../src/receiver/session/session-setup';
import type { Rng } from '../support/arbitrary';
import { FuzzFailure, type Campaign } from './engine';
import { mutate, tokens } from './mutate';

function sessionBody(rng: Rng): PlistDict {
  const body: PlistDict = {
    deviceID: 'AA:BB:CC:DD:EE:FF',
    sessionUUID: '3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11',
    timingProtocol: rng.pick(['NTP', 'None', 'PTP']),
    timingPort: rng.int(1, 65535),
    name: 'pyatv',
    model: 'iPhone14,3',
    isMultiSelectAirPlay: true,
    groupContainsGroupLeader: false,
    isRemoteControlOnly: rng.next() < 0.2,
  };
  return body;
}

function streamsBody(rng: Rng): PlistDict {
  const streams = Array.from({ length: rng.int(1, 3) }, () => ({
    type: rng.pick([96, 103, 110, 130, 7]),
    ct: rng.pick([1, 2, 4, 8]),
    spf: 352,
    sr: 44_100,
    shk: new Uint8Array(32),
    controlPort: rng.int(1, 65535),
  }));
  return { streams };
}

export const sessionSetup: Campaign<{ bytes: Uint8Array; valid: boolean }> = {
  name: 'session-setup',
  expected: (error) => error instanceof SessionRequestError,
  generate(rng) {
    const bytes = encodeBinaryPlist(rng.next() < 0.7 ? sessionBody(rng) : streamsBody(rng));
    return rng.next() < 0.1 ? { bytes, valid: true } : { bytes: mutate(rng, bytes, { tokens: SETUP_TOKENS }), valid: false };
  },
  check({ bytes, valid }) {
    try {
      parseSetup(bytes);
    } catch (error) {
      if (valid) throw new FuzzFailure(`a valid SETUP body was refused: ${(error as Error).message}`);
      throw error;
    }
  },
};

const SETUP_TOKENS = tokens('bplist00', 'timingProtocol', 'timingPort', 'streams', 'ekey', 'NTP', 'PTP', '\x10\x60', '\x11\xff\xff', '\x13\xff\xff\xff\xff\xff\xff\xff\xff');
