// Pairing errors: a reason a person can act on, and the TLV error code to answer with when one applies.

/**
 * Thrown by the pairing primitives and flows for malformed input, failed authentication or a
 * refused request. `tlvError` (a `TLV_ERROR` code from tlv-types) is what the pairing reply
 * carries in its Error TLV; undefined when the input was not even a well-formed message
 * (the route answers 400 or closes the connection).
 */
export class PairingError extends Error {
  override name = 'PairingError';
  readonly tlvError: number | undefined;

  constructor(message: string, tlvError?: number) {
    super(message);
    this.tlvError = tlvError;
  }
}

/**
 * The store failed to read or write a pairing record (a full or read-only disk, a failing flash).
 * Pairing answers it with a TLV error and logs the message; it is never an HTTP 500.
 */
export class StorageError extends Error {
  override name = 'StorageError';
}
