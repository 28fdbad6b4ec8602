// The framed encryption a connection switches to after pairing (spec 5.4), as the message layer
// sees it. src/pairing implements it (ControlChannel); the transport only opens, seals and wipes.

/**
 * `open` takes bytes as they arrive and returns the plaintext of every complete frame (it keeps
 * partial frames); it throws when a frame fails authentication. `seal` frames plaintext for
 * sending. `dispose` wipes the session keys: called once the connection has closed.
 */
export interface SecureChannel {
  open(bytes: Uint8Array): Uint8Array[];
  seal(plaintext: Uint8Array): Uint8Array;
  dispose(): void;
  /** Ciphertext received and not yet a whole frame (for flow control). */
  readonly buffered?: number;
}
