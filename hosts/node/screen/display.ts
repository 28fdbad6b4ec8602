// The Node host's Display port (src/platform.ts): a virtual screen held in memory, drawn by the
// web page that hosts/node/screen/server.ts serves. It keeps what a frame would show (the current
// picture and its transition, the status line, the PIN) and tells listeners of every change.

import type { Display, DisplayStatus, Logger } from '../../../src/platform';
import { TRANSITIONS, type Transition } from '../../../src/receiver';
import type { ScreenSnapshot } from './page-protocol';

/** What the page draws, as sent to it (JSON over Server-Sent Events, and GET /state). */
export type { ScreenSnapshot };

interface ShownPhoto {
  readonly version: number;
  readonly jpeg: Uint8Array;
  readonly transition: Transition;
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

export class VirtualScreen implements Display {
  private photo: ShownPhoto | undefined;
  private photoVersion = 0;
  private status: DisplayStatus;
  private pin: string | undefined;
  private readonly listeners = new Set<(snapshot: ScreenSnapshot) => void>();

  /** `log` gets what the screen shows as log lines too: the PIN at info (a person may need it). */
  constructor(
    name: string,
    private readonly log?: Logger,
  ) {
    this.status = { name, activity: 'idle' };
  }

  showPhoto(jpeg: Uint8Array, transition?: string): void {
    // The bytes are the request's own (the core does not reuse them): kept without a copy.
    this.photo = { version: ++this.photoVersion, jpeg, transition: drawable(transition) };
    this.log?.('debug', `screen: photo ${this.photoVersion} of ${jpeg.length} bytes, transition ${this.photo.transition}`);
    this.changed();
  }

  clear(): void {
    if (!this.photo) return;
    this.photo = undefined;
    this.log?.('debug', 'screen: cleared');
    this.changed();
  }

  showStatus(status: DisplayStatus): void {
    this.status = { ...status };
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
    };
  }

  /** The JPEG of picture `version` while it is the one shown; older pictures are not kept. */
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
