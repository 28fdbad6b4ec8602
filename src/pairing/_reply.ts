// Internal helpers of the pairing flows (pair-setup, pair-verify): what a step answers, the
// error reply of HomeKit-style pairing, and reading the items of a request.

import type { SecureChannel } from '../http/secure-channel';
import { PairingError } from './errors';
import { decodeTlv8, decodeTlvUint, encodeTlv8, encodeTlvUint } from './tlv8';
import { TLV, TLV_ERROR } from './tlv-types';

/** What one pairing step answers: a TLV8 body, and the channel when the step encrypts the connection. */
export interface PairingReply {
  readonly body: Uint8Array;
  /** Set on the step that ends in an encrypted connection (transient M4, pair-verify M4). */
  readonly secure?: SecureChannel;
  /** The encrypted connection comes from a transient pair-setup (the PIN anyone may know, spec 5.3). */
  readonly transient?: boolean;
  /** Set when the step failed: the TLV error answered, for the route's log line. */
  readonly error?: { readonly code: number; readonly reason: string };
}

/** Names of TLV_ERROR codes, for log lines. */
export function tlvErrorName(code: number): string {
  for (const [name, value] of Object.entries(TLV_ERROR)) if (value === code) return name;
  return `error ${code}`;
}

/**
 * A failed step, as HomeKit-style pairing answers it: a 200 response whose body holds the
 * next State and an Error item (and RetryDelay in seconds with Backoff).
 */
export function errorReply(state: number, code: number, reason: string, retryDelaySeconds?: number): PairingReply {
  const items: [number, Uint8Array][] = [
    [TLV.State, encodeTlvUint(state)],
    [TLV.Error, encodeTlvUint(code)],
  ];
  if (retryDelaySeconds !== undefined) items.push([TLV.RetryDelay, encodeTlvUint(retryDelaySeconds)]);
  return { body: encodeTlv8(items), error: { code, reason } };
}

/** The State of a request body; a PairingError without tlvError (answered 400) for an unreadable body or a missing State. */
export function readRequest(body: Uint8Array): { items: Map<number, Uint8Array>; state: number } {
  const items = decodeTlv8(body);
  const state = items.get(TLV.State);
  if (state === undefined) throw new PairingError('pairing message without a State item');
  if (state.length !== 1) throw new PairingError(`State item of ${state.length} bytes, not 1`);
  return { items, state: state[0] };
}

/** The integer item `type`, or `fallback` when absent; malformed (not 1 to 4 bytes) is a 400. */
export function readUint(items: Map<number, Uint8Array>, type: number, fallback: number): number {
  const value = items.get(type);
  return value === undefined ? fallback : decodeTlvUint(value);
}

/**
 * The item `type` of a step, checked for length. Absent or of the wrong size, the step fails
 * with `tlvError` (a well-formed message that is not what the step takes).
 */
export function readItem(items: Map<number, Uint8Array>, type: number, name: string, tlvError: number, length?: { min: number; max: number }): Uint8Array {
  const value = items.get(type);
  if (value === undefined) throw new PairingError(`${name} item missing`, tlvError);
  if (length && (value.length < length.min || value.length > length.max)) {
    const expected = length.min === length.max ? `${length.min}` : `${length.min} to ${length.max}`;
    throw new PairingError(`${name} item of ${value.length} bytes (${expected} expected)`, tlvError);
  }
  return value;
}
