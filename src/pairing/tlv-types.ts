// The pairing TLV8 vocabulary: item types, error codes, methods, flags and states (one table each).
// Values are the HomeKit-style pairing ones the protocol's pair-setup and pair-verify use (spec 5.3).

/** TLV item types. */
export const TLV = {
  Method: 0,
  Identifier: 1,
  Salt: 2,
  PublicKey: 3,
  Proof: 4,
  EncryptedData: 5,
  State: 6,
  Error: 7,
  RetryDelay: 8,
  Certificate: 9,
  Signature: 10,
  Permissions: 11,
  FragmentData: 12,
  FragmentLast: 13,
  Flags: 19,
  Separator: 255,
} as const;
export type TlvType = (typeof TLV)[keyof typeof TLV];

/** Values of the Error item. */
export const TLV_ERROR = {
  Unknown: 1,
  Authentication: 2,
  Backoff: 3,
  MaxPeers: 4,
  MaxTries: 5,
  Unavailable: 6,
  Busy: 7,
} as const;
export type TlvErrorCode = (typeof TLV_ERROR)[keyof typeof TLV_ERROR];

/** Values of the Method item. */
export const PAIR_METHOD = {
  PairSetup: 0,
  PairSetupWithAuth: 1,
  PairVerify: 2,
  AddPairing: 3,
  RemovePairing: 4,
  ListPairings: 5,
} as const;
export type PairMethod = (typeof PAIR_METHOD)[keyof typeof PAIR_METHOD];

/** Bits of the Flags item (an unsigned little-endian integer). */
export const PAIR_FLAG = {
  /** Pair-setup without a lasting pairing: the SRP session key is the EncryptionKey (spec 5.3). */
  Transient: 0x10,
} as const;

/** Values of the State item: the step of a pair-setup or pair-verify exchange. */
export const PAIR_STATE = {
  M1: 1,
  M2: 2,
  M3: 3,
  M4: 4,
  M5: 5,
  M6: 6,
} as const;
export type PairState = (typeof PAIR_STATE)[keyof typeof PAIR_STATE];
