// The Node host's Display port (src/platform.ts): a virtual screen held in memory, drawn by the
// web page that hosts/node/screen/server.ts serves. It keeps what a frame would show (the current
// picture and its transition, the status line, the PIN, what audio plays, how to connect) and tells listeners of
// every change.

import { ARTWORK_TYPES, nowPlayingSeconds } from '../../../src/audio/now-playing';
import { nodeBodyArrays } from '../io/body-arrays';
import type { Display, DisplayStatus, Logger, NowPlaying } from '../../../src/platform';
import { TRANSITIONS, type Transition } from '../../../src/receiver';
import type { ScreenConnection, ScreenNowPlaying, ScreenSnapshot } from './page-protocol';

/** What the page draws, as sent to it (JSON over Server-Sent Events, and GET /state). */
export type { ScreenSnapshot };

interface ShownPhoto {
  readonly version: number;
  readonly jpeg: Uint8Array;
  readonly transition: Transition;
  /** Ends the screen's hold on the bytes (the receiver may free them once it let go too: io/body-arrays.ts). */
  readonly letGo: () => void;
}

/** Where the screen server serves the pictures: photoPath() under it. */
export const PHOTO_PATH_PREFIX = '/photo/';

/** The URL of picture `version` on the screen server. */
function photoPath(version: number): string {
  return `${PHOTO_PATH_PREFIX}${version}.jpg`;
}

/** The version of a photoPath(), or undefined for any other path. */
export function parsePhotoPath(path: string): number | undefined {
  const match = /^\/photo\/(\d{1,15})\.jpg$/.exec(path);
  return match ? Number(match[1]) : undefined;
}

/** Where the screen server serves the cover art of what plays: artworkPath() under it. */
export const ARTWORK_PATH_PREFIX = '/artwork/';

function artworkPath(version: number): string {
  return `${ARTWORK_PATH_PREFIX}${version}`;
}

/** The version of an artworkPath(), or undefined for any other path. */
export function parseArtworkPath(path: string): number | undefined {
  const match = /^\/artwork\/(\d{1,15})$/.exec(path);
  return match ? Number(match[1]) : undefined;
}

/** What plays, as kept: the port's value, and when its progress came (the bar runs on from there). */
interface Playing {
  readonly version: number;
  readonly playing: NowPlaying;
  readonly artworkVersion: number;
  /** The host's monotonic ms when `playing.progress` arrived. */
  readonly progressAt: number;
}

export class VirtualScreen implements Display {
  private photo: ShownPhoto | undefined;
  private photoVersion = 0;
  private status: DisplayStatus;
  private pin: string | undefined;
  private nowPlaying: Playing | undefined;
  private connection: ScreenConnection | undefined;
  private nowPlayingVersion = 0;
  private artworkVersion = 0;
  private readonly listeners = new Set<(snapshot: ScreenSnapshot) => void>();
  /**
   * What the screen's "reset wrong PINs" does: the host wires it to the receiver's pair-setup
   * (resetTries), which a person at the receiver uses after a lock-out.
   */
  onResetPairingTries: (() => void) | undefined;

  /**
   * `log` gets what the screen shows as log lines too: the PIN at info (a person may need it).
   * `now` is the host's monotonic clock, ms: a track's progress runs on it.
   */
  constructor(
    name: string,
    private readonly log?: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.status = { name, activity: 'idle' };
  }

  showPhoto(jpeg: Uint8Array, transition?: string): void {
    // The bytes are the request's own (the core does not reuse them): kept without a copy, held
    // while shown, as the receiver may give their memory back once it no longer holds them.
    this.photo?.letGo();
    this.photo = { version: ++this.photoVersion, jpeg, transition: drawable(transition), letGo: nodeBodyArrays.hold(jpeg) };
    this.log?.('debug', `screen: photo ${this.photoVersion} of ${jpeg.length} bytes, transition ${this.photo.transition}`);
    this.changed();
  }

  clear(): void {
    if (!this.photo) return;
    this.photo.letGo();
    this.photo = undefined;
    this.log?.('debug', 'screen: cleared');
    this.changed();
  }

  showStatus(status: DisplayStatus): void {
    this.status = { ...status };
    this.changed();
  }

  /** How senders reach the receiver (the host knows once it listens): the idle screen says it. */
  showConnection(connection: ScreenConnection): void {
    this.connection = { ...connection, addresses: [...connection.addresses] };
    this.changed();
  }

  showPin(pin: string): void {
    this.pin = pin;
    this.log?.('info', `screen: pairing PIN ${pin}`);
    this.changed();
  }

  hidePin(): void {
    if (this.pin === undefined) return;
    this.pin = undefined;
    this.log?.('info', 'screen: pairing PIN hidden');
    this.changed();
  }

  /** A person at the screen asked for the count of wrong PINs to be reset; false where nothing is wired to it. */
  resetPairingTries(): boolean {
    if (!this.onResetPairingTries) return false;
    this.log?.('info', 'screen: the count of wrong PINs reset by a person at the screen');
    this.onResetPairingTries();
    return true;
  }

  showNowPlaying(playing: NowPlaying | undefined): void {
    const before = this.nowPlaying;
    if (!playing) {
      if (!before) return;
      this.nowPlaying = undefined;
      this.log?.('debug', 'screen: nothing plays');
      this.changed();
      return;
    }
    // The core keeps each part's value while another changes (src/audio/now-playing.ts): the same
    // artwork is the same picture (the page does not load it again), the same progress runs on.
    const sameArtwork = before !== undefined && before.playing.artwork === playing.artwork;
    const sameProgress = before !== undefined && before.playing.progress === playing.progress;
    this.nowPlaying = {
      version: ++this.nowPlayingVersion,
      playing,
      // Served as its own type from the page's origin: a picture type only, never markup or script.
      artworkVersion: sameArtwork ? before.artworkVersion : playing.artwork && ARTWORK_TYPES.includes(playing.artwork.mime) ? ++this.artworkVersion : 0,
      progressAt: sameProgress ? before.progressAt : this.now(),
    };
    this.log?.('debug', `screen: playing ${[playing.title, playing.artist, playing.album].filter((part) => part).join(' / ') || 'a track without a title'}`);
    this.changed();
  }

  /** The cover art of what plays while `version` is it; older pictures are not kept. */
  artwork(version: number): { readonly mime: string; readonly bytes: Uint8Array } | undefined {
    const playing = this.nowPlaying;
    return playing && playing.artworkVersion === version ? playing.playing.artwork : undefined;
  }

  snapshot(): ScreenSnapshot {
    const { photo, status } = this;
    return {
      name: status.name,
      activity: status.activity,
      media: status.media ?? null,
      slideshow: status.slideshow ?? null,
      pin: this.pin ?? null,
      photo: photo
        ? { version: photo.version, url: photoPath(photo.version), transition: photo.transition, bytes: photo.jpeg.length }
        : null,
      nowPlaying: this.nowPlaying ? this.nowPlayingSnapshot(this.nowPlaying) : null,
      connection: this.connection ?? null,
    };
  }

  private nowPlayingSnapshot({ version, playing, artworkVersion, progressAt }: Playing): ScreenNowPlaying {
    let progress: ScreenNowPlaying['progress'] = null;
    if (playing.progress && playing.progress.sampleRate > 0) {
      const { elapsed, duration } = nowPlayingSeconds(playing.progress);
      // Seconds have passed since the sender said where it was (a page may open minutes later).
      progress = { elapsed: Math.min(duration, elapsed + (this.now() - progressAt) / 1000), duration };
    }
    return {
      version,
      title: playing.title ?? null,
      artist: playing.artist ?? null,
      album: playing.album ?? null,
      artworkUrl: artworkVersion > 0 ? artworkPath(artworkVersion) : null,
      progress,
    };
  }

  /**
   * The JPEG of picture `version` while it is the one shown; older pictures are not kept. Read
   * after this turn (a response sent over several writes), it must be held (io/body-arrays.ts).
   */
  photoBytes(version: number): Uint8Array | undefined {
    return this.photo?.version === version ? this.photo.jpeg : undefined;
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: (snapshot: ScreenSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}

/** The animation for a transition the core resolved (src/receiver/media/transitions.ts); none when absent. */
function drawable(transition: string | undefined): Transition {
  if (transition === undefined) return 'none';
  return (TRANSITIONS as readonly string[]).includes(transition) ? (transition as Transition) : 'dissolve';
}
