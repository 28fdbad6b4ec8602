// The face of src/timing/: clock synchronisation with a sender (mirroring's NTP, audio sessions'
// RAOP timing), as the receiver, the hosts and the sender use it.

export { ClockFilter, ClockRecovery, TimingClient, offsetAndDelay } from './clock';
export type { TimingAnswer, TimingFormat, TimingSample } from './clock';
export { NTP_FORMAT, NTP_PACKET_BYTES, NTP_RECEIVER_PORT, NTP_SENDER_PORT, isNtpClientRequest, ntpRequest, ntpServerReply } from './ntp';
export { RAOP_TIMING_BYTES, RAOP_TIMING_FORMAT, isRaopTimingRequest, raopTimingReply, raopTimingRequest } from './raop-timing';
export { NTP_UNIX_EPOCH_MS, againstUnixTime, againstWallClock, msToNtp, ntpMs, readTimestamp } from './timestamps';
export { SlewedOffset } from './slewed-offset';
