// The error type of the discovery module: malformed TXT values, records and identities.

/**
 * Thrown for a TXT value that cannot be read (`features: "0xZZ" is not hex`), a record that
 * cannot be written (a string over 255 bytes) or an identity the records cannot carry. The
 * message names the field and what is wrong with it.
 */
export class DiscoveryError extends Error {
  override name = 'DiscoveryError';
}
