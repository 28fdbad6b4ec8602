// The face of src/pairing/: what the receiver, the hosts and the sender use of pairing (pair-setup,
// pair-verify, the paired-sender store, the frame and crypto kernels' contract, TLV8). Inside the folder,
// modules import each other directly.

export { errorReply, tlvErrorName } from './_reply';
export type { PairingReply } from './_reply';
export { bigIntToBytes, bytesToBigInt } from './_util';
export { AUTH_SETUP_BODY_BYTES, authSetupReply } from './auth-setup';
export type { AuthSetupDevice } from './auth-setup';
export { ENCRYPTION_KEY, createEventChannel, createSenderEventChannel } from './channel';
// The portable build (portable-crypto-kernels.ts) is not re-exported here: an export from the
// face loads its module for every importer, and that one loads @noble/curves. A host that runs
// on it imports it by its own path; a host with natives never loads it.
export { isAllZero, withFrameKernel } from './crypto-kernels';
export type { CryptoKernels } from './crypto-kernels';
export { readCertificateDer } from './der';
export { PairingError, StorageError } from './errors';
export { portableFrameKernel, setNonceCounter } from './frame-kernel';
export type { FrameKernel } from './frame-kernel';
export { portableModPow } from './modexp';
export { PairSetup, type PairingPeer } from './pair-setup';
export { RANDOM_PIN, randomPin, setupCodeFor, TRANSIENT_SETUP_CODE } from './setup-code';
export { PairVerify } from './pair-verify';
export { PairingsAdmin, permissionName } from './pairings-admin';
export { PeerStore, RECORD_MAX_PEERS } from './peers';
export { parseRsaPrivateKey } from './rsa';
export { PairingStepLimiter } from './step-limiter';
export { PAIR_STATE, TLV, TLV_ERROR } from './tlv-types';
export { decodeTlv8 } from './tlv8';
