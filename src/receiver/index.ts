// The face of src/receiver/: what a host needs to build and drive the receiver (the Receiver, its
// configuration and limits, profiles, identity, the timer driver, the transitions table).

export { ConfigError, freezeConfig, makeConfig } from './config';
export type { ReceiverConfig } from './config';
export { SECRET_KEY_RECORDS, loadOrCreateDeviceId } from './identity';
export { DEFAULT_LIMITS } from './limits';
export type { ReceiverLimits } from './limits';
export { TRANSITIONS } from './media/transitions';
export type { Transition } from './media/transitions';
export { statusWords } from './media/status-words';
export { PROFILES, isProfileName, profileMirrors, profilePlaysVideo, profileShowsPictures } from './profiles';
export { BOARDS, boardLimits, isBoardName, type BoardName } from './boards';
export { Receiver } from './receiver';
export { TimerDriver } from './timers';
