// Which secret a pair-setup's SRP runs with (spec 5.2, 5.3), and how a random PIN is made.
//
//   a password is configured           the password, for every pair-setup
//   transient, no PIN required          3939, the spec's public code (senders that pair
//                                       transiently always send it): not a secret
//   transient, a PIN required           refused (Unavailable): 3939 is public, so a transient
//                                       pairing would get past a required PIN with no secret
//   normal, pin "random"                a PIN drawn per attempt and shown on the screen and in
//                                       the log (the receiver's default when a PIN is required
//                                       and none is given), as real receivers do
//   normal, a fixed pin                 the configured PIN
//
// How guessable each is decides what wrong codes cost (pair-setup.ts): a public code's failures
// are not counted; a random PIN is spent by a wrong proof, so it cannot be guessed in time and is
// never locked out; a fixed PIN or password has a permanent budget of failures.

import type { RandomSource } from '../platform';
import { PairingError } from './errors';
import { TLV_ERROR } from './tlv-types';

/** spec 5.3: the code of home-based (transient) pairing, which senders always send. */
export const TRANSIENT_SETUP_CODE = '3939';
/** The `pin` setting that asks for a random PIN per pair-setup attempt. */
export const RANDOM_PIN = 'random';
/** Digits of a random PIN (what senders' PIN dialogs take). */
const RANDOM_PIN_DIGITS = 4;

/** How a setup code can be guessed (see the header). */
export type SetupCodeKind = 'public' | 'fixed' | 'random';

/** The code of a pair-setup, or `random`: draw one (randomPin) once the attempt holds the receiver. */
export type SetupCodeRule = { readonly kind: 'public' | 'fixed'; readonly code: string } | { readonly kind: 'random' };

/** The configuration the setup code comes from. */
export interface SetupCodeConfig {
  readonly password: string;
  /** 4 to 8 digits, or RANDOM_PIN. */
  readonly pin: string;
  readonly pinRequired: boolean;
}

/** The rule for a pair-setup (see the header); throws a PairingError (Unavailable) for a refused transient one. */
export function setupCodeFor(config: SetupCodeConfig, transient: boolean): SetupCodeRule {
  if (config.password !== '') return { kind: 'fixed', code: config.password };
  if (transient) {
    if (!config.pinRequired) return { kind: 'public', code: TRANSIENT_SETUP_CODE };
    throw new PairingError(`transient pairing uses the public code ${TRANSIENT_SETUP_CODE} and this receiver requires a PIN: refused (pair with the PIN, Flags without Transient)`, TLV_ERROR.Unavailable);
  }
  if (config.pin === RANDOM_PIN) return { kind: 'random' };
  return { kind: 'fixed', code: config.pin };
}

/** A PIN of RANDOM_PIN_DIGITS digits, each value equally likely. */
export function randomPin(random: RandomSource): string {
  const range = 10 ** RANDOM_PIN_DIGITS;
  // The largest multiple of range below 2^32: values past it are drawn again (no modulo bias).
  const limit = Math.floor(0x1_0000_0000 / range) * range;
  for (;;) {
    const bytes = random(4);
    const value = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
    if (value < limit) return String(value % range).padStart(RANDOM_PIN_DIGITS, '0');
  }
}
