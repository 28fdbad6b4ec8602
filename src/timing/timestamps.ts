// NTP timestamps (RFC 5905 6: 32-bit seconds and a 32-bit fraction of a second), as every
// timing packet here carries them, read and written as milliseconds (a double: microsecond-exact
// for any NTP era). Only differences between timestamps matter to the clock code, so a sender
// that counts from its session start and one that counts from 1900 are read alike.

const TWO_32 = 2 ** 32;

/** RFC 5905 6: the NTP era starts in 1900, Unix time in 1970: 2,208,988,800 s apart. */
export const NTP_UNIX_EPOCH_MS = 2_208_988_800_000;

/**
 * A sender's clock against our wall clock (ms), with the epoch taken out when the sender counts
 * from 1900 (NTP timestamps, as pyatv serves them) rather than 1970: within a day of the epochs'
 * difference, it is that.
 */
export function againstUnixTime(senderMinusWallMs: number): { readonly ms: number; readonly ntpEra: boolean } {
  const ntpEra = Math.abs(senderMinusWallMs - NTP_UNIX_EPOCH_MS) < 86_400_000;
  return { ms: ntpEra ? senderMinusWallMs - NTP_UNIX_EPOCH_MS : senderMinusWallMs, ntpEra };
}

/**
 * A clock offset (sender minus our monotonic clock, at monotonic `now`) said against our wall
 * clock instead, for a person comparing clocks (see againstUnixTime), with how it reads in a log.
 */
export function againstWallClock(offsetMs: number, now: number, wallTime: number): { readonly ms: number; readonly ntpEra: boolean; readonly words: string } {
  const { ms, ntpEra } = againstUnixTime(offsetMs - (wallTime - now));
  return { ms, ntpEra, words: `sender clock - wall clock ${ms.toFixed(3)} ms${ntpEra ? ' (its clock counts from 1900)' : ''}` };
}

/** An NTP 64-bit timestamp given as seconds and fraction (spec 2.14's packet header) in ms. */
export function ntpMs(seconds: number, fraction: number): number {
  return seconds * 1000 + (fraction * 1000) / TWO_32;
}

/** Milliseconds as NTP seconds and fraction, each a 32-bit unsigned field (the seconds wrap as the era does). */
export function msToNtp(ms: number): { readonly seconds: number; readonly fraction: number } {
  let seconds = Math.floor(ms / 1000);
  let fraction = Math.round(((ms - seconds * 1000) / 1000) * TWO_32);
  // A fraction that rounds up to a whole second carries into the seconds.
  if (fraction >= TWO_32) {
    fraction -= TWO_32;
    seconds++;
  }
  return { seconds: seconds >>> 0, fraction: fraction >>> 0 };
}

/** The timestamp at byte `at` of a packet, in ms. */
export function readTimestamp(packet: Uint8Array, at: number): number {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  return ntpMs(view.getUint32(at), view.getUint32(at + 4));
}

export function writeTimestamp(packet: Uint8Array, at: number, ms: number): void {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const { seconds, fraction } = msToNtp(ms);
  view.setUint32(at, seconds);
  view.setUint32(at + 4, fraction);
}
