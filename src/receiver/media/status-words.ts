// The words of a screen's status line: what the receiver does, as a person reads it. One table for
// both hosts' status lines (the Moddable strip, the Node screen page). Activities are spec 2.1's
// names for senders; a photo and a video are both `receivingVideo` there, so what the media session
// shows says it when there is one. ASCII only: the Moddable strip's font has no more.

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

/** Slideshow states (spec 3) as a person reads them. */
export const SLIDESHOW_WORDS: Readonly<Record<string, string>> = {
  loading: 'Slideshow loading',
  playing: 'Slideshow playing',
};

/** The part of a DisplayStatus the words come from (the Node page gets it as JSON, nulls for absent). */
export type StatusWordsOf = Pick<DisplayStatus, 'activity'> & {
  readonly media?: ShownMedia | null;
  readonly slideshow?: string | null;
};

/** What the status line says the receiver does: the media shown, else the activity. */
export function statusWords(status: StatusWordsOf): string {
  const { media, slideshow, activity } = status;
  if (media === 'slideshow' && slideshow) return wordsIn(SLIDESHOW_WORDS, slideshow) ?? `Slideshow ${slideshow}`;
  if (media) return MEDIA_WORDS[media];
  // An activity this table does not know yet is shown as it is rather than not at all.
  return wordsIn(ACTIVITY_WORDS, activity) ?? activity;
}

function wordsIn(table: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
