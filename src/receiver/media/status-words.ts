// The words of a screen's status line: what the receiver does, as a person reads it. One table for
// both hosts' status lines (the Moddable strip, the Node screen page). Activities are spec 2.1's
// names for senders; a photo and a video are both `receivingVideo` there, so what the media session
// shows says it when there is one; a paused video and the track audio plays are named too, where
// the screen knows them. ASCII only: the Moddable strip's font has no more.

import type { Activity } from '../../discovery';
import type { DisplayStatus, ShownMedia } from '../../platform';

/** spec 2.1 activities, as a person reads them (when the media session shows nothing). */
export const ACTIVITY_WORDS: Readonly<Record<Activity, string>> = {
  idle: 'Idle',
  playingLocalMedia: 'Playing local media',
  receivingAudio: 'Playing audio',
  receivingVideo: 'Receiving video',
  receivingScreenMirroring: 'Mirroring',
};

/** What the media session shows, as a person reads it; a slideshow says its state instead. */
export const MEDIA_WORDS: Readonly<Record<ShownMedia, string>> = {
  photo: 'Showing a photo',
  slideshow: 'Slideshow',
  video: 'Playing video',
  mirror: 'Mirroring',
  audio: 'Playing audio',
};

/** What the media session shows, paused (its rate 0), as a person reads it; media not here do not pause. */
export const PAUSED_WORDS: Readonly<Partial<Record<ShownMedia, string>>> = {
  video: 'Video paused',
};

/** While a PIN is shown for a sender to type: what the screen is for just then. */
export const PAIRING_WORDS = 'Pairing: enter the code on your device';

/** Between the words and the track that plays (`Playing audio - Title - Artist`). */
export const TRACK_SEPARATOR = ' - ';

/** Slideshow states (spec 3) as a person reads them. */
export const SLIDESHOW_WORDS: Readonly<Record<string, string>> = {
  loading: 'Slideshow loading',
  playing: 'Slideshow playing',
};

/** The part of a DisplayStatus the words come from (the Node page gets it as JSON, nulls for absent). */
export type StatusWordsOf = Pick<DisplayStatus, 'activity'> & {
  readonly media?: ShownMedia | null;
  readonly slideshow?: string | null;
  /** What is shown is paused (the Node page knows a video's rate from its player command). */
  readonly paused?: boolean;
  /** The track audio plays (`Title - Artist`), where the screen knows it; the words then name it. */
  readonly track?: string | null;
  /** A PIN is on the screen (pair-setup): the words say so, whatever else goes on. */
  readonly pairing?: boolean;
};

/** What the status line says the receiver does: the media shown, else the activity; the track audio plays. */
export function statusWords(status: StatusWordsOf): string {
  const { media, slideshow, activity, paused, track, pairing } = status;
  if (pairing) return PAIRING_WORDS;
  if (media === 'slideshow' && slideshow) return wordsIn(SLIDESHOW_WORDS, slideshow) ?? `Slideshow ${slideshow}`;
  const pausedWords = media && paused ? PAUSED_WORDS[media] : undefined;
  // An activity this table does not know yet is shown as it is rather than not at all.
  const words = pausedWords ?? (media ? MEDIA_WORDS[media] : (wordsIn(ACTIVITY_WORDS, activity) ?? activity));
  const audio = media === 'audio' || (!media && activity === 'receivingAudio');
  return audio && track ? `${words}${TRACK_SEPARATOR}${track}` : words;
}

function wordsIn(table: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
