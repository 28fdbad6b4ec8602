// The media session (DESIGN 6): what owns the screen, the activity (spec 2.1) and the media events
// (spec 6) for photos, slideshows, video and mirroring. Features see this, not
// the receiver: each registers what POST /stop ends and how it gives the screen up.
//
// spec 2.1's table has no row for photos or slideshows. Real receivers run them in the same
// media session as video (one reverse event channel, one session, one POST /stop for all), and
// spec 2.4 sets ReceiverSessionIsActive "while the receiver receives anything": so while any
// feature is active the activity is `receiving video` (flag 17 set), and `idle` once none is.
// Mirroring has its own row (spec 2.1 `receiving screen mirroring`: igl 1, gcgl 1, flag 17 set),
// and so has audio (`receiving audio`); audio takes no screen: photos go on showing beside it.

import type { Activity } from '../../discovery';
import type { Display, DisplayStatus, Logger, ShownMedia } from '../../platform';
import type { EventSender } from './events';
import { describeError } from '../../errors';
import type { Announce, EventOrigin, ReceiverEventName } from '../host-events';

export const MEDIA_SESSION_ACTIVITY: Activity = 'receivingVideo';

export type MediaKind = ShownMedia;

/** The activity (spec 2.1) while a kind of media is received. */
const MEDIA_ACTIVITY: Readonly<Record<MediaKind, Activity>> = {
  photo: MEDIA_SESSION_ACTIVITY,
  slideshow: MEDIA_SESSION_ACTIVITY,
  video: MEDIA_SESSION_ACTIVITY,
  mirror: 'receivingScreenMirroring',
  audio: 'receivingAudio',
};

/** A feature of the media session. */
export interface MediaFeature {
  /** POST /stop of `sessionId` (spec 3); `order` is the stop's Request.order. */
  stop(sessionId: string | undefined, order: number): void;
  /**
   * Another feature, `by`, takes the screen at request order `order`: this one's session ends
   * (a slideshow lets a photo through: its next slide takes the screen back).
   */
  yieldScreen(order: number, reason: string, by: MediaKind): void;
}

interface MediaSessionContext {
  readonly log: Logger;
  /** The screen, where there is one. */
  readonly display: Display | undefined;
  readonly events: EventSender;
  /** Moves the receiver to an activity (the TXT records follow). */
  setActivity(activity: Activity): void;
  /** Changes what the screen's status line shows. */
  updateStatus(change: Partial<DisplayStatus>): void;
  /** Tells the host what happened (ReceiverPorts.onEvent). */
  readonly announce?: Announce;
}

export class MediaSession {
  private readonly features = new Map<MediaKind, MediaFeature>();
  /** Active kinds in the order they began: the newest says the activity. */
  private readonly active = new Set<MediaKind>();
  /** The kind the status line was last told it shows. */
  private shown: MediaKind | undefined;

  constructor(private readonly context: MediaSessionContext) {}

  get display(): Display | undefined {
    return this.context.display;
  }

  get events(): EventSender {
    return this.context.events;
  }

  get log(): Logger {
    return this.context.log;
  }

  register(kind: MediaKind, feature: MediaFeature): void {
    this.features.set(kind, feature);
  }

  isActive(kind: MediaKind): boolean {
    return this.active.has(kind);
  }

  /**
   * `kind` shows something: the activity becomes the media session's, and the status line says
   * what is shown (a photo and a video share an activity). The status first, so the line never
   * reads the activity's generic words in between.
   */
  begin(kind: MediaKind): void {
    this.active.delete(kind);
    this.active.add(kind);
    this.showNewest();
    this.context.setActivity(MEDIA_ACTIVITY[kind]);
  }

  /**
   * `kind` shows nothing any more: the newest kind still active says the activity; with none
   * active, the receiver is idle again. The activity first, for the same reason as in begin().
   */
  end(kind: MediaKind): void {
    if (!this.active.delete(kind)) return;
    const newest = this.newest();
    this.context.setActivity(newest === undefined ? 'idle' : MEDIA_ACTIVITY[newest]);
    this.showNewest();
  }

  private newest(): MediaKind | undefined {
    let newest: MediaKind | undefined;
    for (const kind of this.active) newest = kind;
    return newest;
  }

  /** Tells the status line the newest kind shown, when it changed. */
  private showNewest(): void {
    const newest = this.newest();
    if (newest === this.shown) return;
    this.shown = newest;
    this.context.updateStatus({ media: newest });
  }

  /** `kind` takes the screen (a photo shown, a slideshow or a video started): every other feature gives it up. */
  takeScreen(kind: MediaKind, order: number, reason: string): void {
    // Active first, so the activity does not drop to idle between the two sessions.
    this.begin(kind);
    for (const [other, feature] of this.features) if (other !== kind) feature.yieldScreen(order, reason, kind);
  }

  /** POST /stop (spec 3): every feature ends what the session runs; a failing one is logged, the others still run. */
  stop(sessionId: string | undefined, order: number): void {
    for (const [kind, feature] of this.features) {
      try {
        feature.stop(sessionId, order);
      } catch (error) {
        this.context.log('error', `stopping ${kind} failed: ${describeError(error)}`);
      }
    }
  }

  updateStatus(change: Partial<DisplayStatus>): void {
    this.context.updateStatus(change);
  }

  /** Tells the host what happened (host-events.ts): a photo shown, a video's state, mirroring. */
  announce(name: ReceiverEventName, origin: EventOrigin, details?: Readonly<Record<string, string>>): void {
    this.context.announce?.(name, origin, details);
  }
}
