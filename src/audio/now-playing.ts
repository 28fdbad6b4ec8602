// What realtime audio plays, built from the three SET_PARAMETER bodies senders send for it
// (NowPlaying, src/platform.ts): DMAP metadata (dmap.ts), the artwork (`image/jpeg` or
// `image/png`), and the `progress: START/CURRENT/END` text parameter in RTP times. Each changes
// its own part and keeps the others; the display is given the whole value on every change.

import type { NowPlaying } from '../platform';
import type { DmapMetadata } from './dmap';

/** Artwork Content-Types a display draws (pyatv sends image/jpeg; iTunes jpeg or png). */
export const ARTWORK_TYPES: readonly string[] = ['image/jpeg', 'image/png'];

/** The text parameter that carries progress: `progress: 1146221540/1146549156/1195701740`. */
export const PROGRESS_PARAMETER = 'progress';

/** A `progress` value that is not three RTP times; the message says what it is. */
export class ProgressError extends Error {
  override name = 'ProgressError';
}

/** A NowPlaying being made (the port's value is read-only). */
type Building = { -readonly [K in keyof NowPlaying]: NowPlaying[K] };

/** `playing` with the track's title, artist, album and genre from DMAP (those sent; the rest kept). */
export function withMetadata(playing: NowPlaying | undefined, metadata: DmapMetadata): NowPlaying {
  const next: Building = { ...playing };
  if (metadata.title !== undefined) next.title = metadata.title;
  if (metadata.artist !== undefined) next.artist = metadata.artist;
  if (metadata.album !== undefined) next.album = metadata.album;
  if (metadata.genre !== undefined) next.genre = metadata.genre;
  return next;
}

/**
 * `playing` with this artwork (`mime` as artworkType gives it); an empty body takes the artwork
 * away (a track without one).
 */
export function withArtwork(playing: NowPlaying | undefined, mime: string, bytes: Uint8Array): NowPlaying {
  const next: Building = { ...playing };
  if (bytes.length === 0) delete next.artwork;
  else next.artwork = { mime, bytes };
  return next;
}

/** The artwork type a Content-Type names (`image/jpeg; charset=...` is image/jpeg), or undefined when a display draws none of it. */
export function artworkType(contentType: string): string | undefined {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return ARTWORK_TYPES.includes(mime) ? mime : undefined;
}

/** `playing` with progress read from the `progress` parameter's value, at the stream's rate. Throws ProgressError. */
export function withProgress(playing: NowPlaying | undefined, value: string, sampleRate: number): NowPlaying {
  return { ...playing, progress: { ...readProgress(value), sampleRate } };
}

/** `START/CURRENT/END`, RTP times (32-bit, so END may have wrapped past 0). Throws ProgressError. */
export function readProgress(value: string): { startRtp: number; currentRtp: number; endRtp: number } {
  const parts = value.trim().split('/');
  if (parts.length !== 3) throw new ProgressError(`progress '${value.slice(0, 80)}' is not START/CURRENT/END`);
  const [startRtp, currentRtp, endRtp] = parts.map((part) => {
    // pyatv writes END as start + duration x rate, a float in Python when the duration is one.
    if (!/^\d{1,12}(\.\d+)?$/.test(part)) throw new ProgressError(`progress '${value.slice(0, 80)}': '${part.slice(0, 20)}' is not an RTP time`);
    return Math.floor(Number(part)) % 0x100000000;
  });
  return { startRtp, currentRtp, endRtp };
}

/**
 * Seconds played and the track's length from progress: RTP times are 32-bit and wrap, so the
 * spans are taken modulo 2^32. `currentRtp` may be given newer than the one sent (the frame the
 * sink plays now); elapsed stays within 0..duration.
 */
export function nowPlayingSeconds(progress: NonNullable<NowPlaying['progress']>, currentRtp = progress.currentRtp): { elapsed: number; duration: number } {
  const length = rtpSpan(progress.startRtp, progress.endRtp);
  let played = rtpSpan(progress.startRtp, currentRtp);
  // Outside the track: before its start (a few frames early) reads as 0, past its end as the end.
  if (played > length) played = rtpSpan(currentRtp, progress.startRtp) < rtpSpan(progress.endRtp, currentRtp) ? 0 : length;
  return { elapsed: played / progress.sampleRate, duration: length / progress.sampleRate };
}

/** Frames from `from` to `to` on the 32-bit RTP clock. */
function rtpSpan(from: number, to: number): number {
  return (to - from + 0x100000000) % 0x100000000;
}
