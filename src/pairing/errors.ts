// Pairing errors: a reason a person can act on, and the TLV error code to answer with when one
// applies; and stepFailure, the one place a failed step's error becomes the TLV error it answers.

import { RequestError } from '../errors';
import { STATUS } from '../http/status';
import type { Logger } from '../platform';
import { TLV_ERROR } from './tlv-types';

/**
 * Thrown by the pairing primitives and flows for malformed input, failed authentication or a
 * refused request. `tlvError` (a `TLV_ERROR` code from tlv-types) is what the pairing reply
 * carries in its Error TLV; undefined when the input was not even a well-formed message. Such
 * an error escapes the flow and, a RequestError, is answered 400 by the router.
 */
export class PairingError extends RequestError {
  override name = 'PairingError';
  readonly tlvError: number | undefined;

  constructor(message: string, tlvError?: number) {
    super(STATUS.badRequest, message);
    this.tlvError = tlvError;
  }
}

/**
 * The store failed to read or write a pairing record (a full or read-only disk, a failing flash).
 * Pairing answers it with a TLV error and logs the message (stepFailure); it is never an HTTP 500.
 */
export class StorageError extends Error {
  override name = 'StorageError';
}

/** A PairingError the step answers in its Error TLV. */
type StepFailure = PairingError & { readonly tlvError: number };

/**
 * What a failed pairing step (`step`: `pair-setup M3`, `pairing management`) answers in its
 * Error TLV. A StorageError is Unknown for the sender, which may try again later, with the cause
 * logged; a PairingError with a TLV error is itself. Anything else is thrown again: a
 * PairingError without a TLV error (a malformed message, 400) or a fault of the receiver (500).
 */
export function stepFailure(caught: unknown, step: string, log: Logger): StepFailure {
  if (caught instanceof StorageError) {
    log('error', `${step}: ${caught.message}`);
    return new PairingError(`storage failed: ${caught.message}`, TLV_ERROR.Unknown) as StepFailure;
  }
  if (caught instanceof PairingError && caught.tlvError !== undefined) return caught as StepFailure;
  throw caught;
}
