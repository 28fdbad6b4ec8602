// The picture budget: one ledger of every picture byte the receiver holds (DESIGN principle 4),
// against limits.pictureBudgetBytes. Sans-I/O bookkeeping only: it allocates nothing, it counts.
//
// Who holds what: a PUT /photo from its head on (its Content-Length; one drawn as it arrives only
// what it may hold at once, limits.maxStreamedPhotoHeldBytes), the photo cache's entries,
// the picture on the screen, and slideshow fetches (maxReverseBodyBytes each until the reply is
// in, then the reply's size) with the pictures they brought. One picture held by several (a
// cached photo that is also shown) is one grant with several holders, counted once.
//
// When a reservation does not fit, the reclaimers (the photo cache) are asked first to give
// back what they can; then it is refused with a reason naming the limit. Nothing here waits:
// a refused upload is answered 413, a refused slideshow fetch is not sent, and the slideshow
// asks again when a release frees room (onRelease).
//
// A grant may carry its picture's array (PictureGrant.picture: a photo's body, made for it
// alone): when the last holder lets go, it goes to the host's `free` (ReceiverPorts.freeBytes),
// which may give the memory back at once: where a collector frees an array that lived a while
// only in a full collection, a cached photo's bytes would otherwise wait for one (on the desktop
// host, 16 MB photos made one every few pictures).

/** Bytes held for one picture (or one picture on its way), by one or more holders. */
export class PictureGrant {
  /** Holders that have not released it yet; the bytes are freed when none is left. */
  holders = 1;
  /**
   * The array holding the picture, when the receiver made it for this picture alone and nothing
   * but the grant's holders reads it: handed to the budget's `free` with the last release.
   */
  picture: Uint8Array | undefined;

  constructor(
    public bytes: number,
    /** What it is for, in the log's words: `PUT /photo from 127.0.0.1:51234`, `slideshow fetch`. */
    readonly what: string,
  ) {}

  get released(): boolean {
    return this.holders === 0;
  }
}

export type Reservation = { readonly granted: true; readonly grant: PictureGrant } | { readonly granted: false; readonly reason: string };

/** Gives back pictures it holds (evicting them) until `needed` more bytes are free, if it can. */
type Reclaimer = (needed: number) => void;

export class PictureBudget {
  private used = 0;
  private readonly reclaimers: Reclaimer[] = [];
  private readonly releaseListeners: (() => void)[] = [];
  /** The picture the display keeps (one screen for photos and slideshows). */
  private onScreen: PictureGrant | undefined;

  constructor(
    /** limits.pictureBudgetBytes. */
    readonly limitBytes: number,
    /** Told of a grant's picture once no holder is left (ReceiverPorts.freeBytes); never read again after. */
    private readonly free?: (picture: Uint8Array) => void,
  ) {}

  /** Bytes held now, all grants together. */
  get usedBytes(): number {
    return this.used;
  }

  get freeBytes(): number {
    return this.limitBytes - this.used;
  }

  /** Asked, in the order added, to give back pictures when a reservation does not fit. */
  addReclaimer(reclaim: Reclaimer): void {
    this.reclaimers.push(reclaim);
  }

  /** Told after a release that freed bytes (a waiting fetch may fit now). */
  onRelease(listener: () => void): void {
    this.releaseListeners.push(listener);
  }

  /**
   * Reserves `bytes` for `what`. When they do not fit, the reclaimers give back what they can
   * first; still short, the answer is a refusal whose reason names the limit and what holds it.
   */
  reserve(bytes: number, what: string): Reservation {
    if (bytes > this.limitBytes) {
      return { granted: false, reason: `${what} needs ${bytes} bytes, more than limits.pictureBudgetBytes (${this.limitBytes}) allows for all pictures together` };
    }
    for (const reclaim of this.reclaimers) {
      if (this.used + bytes <= this.limitBytes) break;
      reclaim(this.used + bytes - this.limitBytes);
    }
    if (this.used + bytes > this.limitBytes) {
      return { granted: false, reason: `${what} needs ${bytes} bytes; ${this.used} of limits.pictureBudgetBytes (${this.limitBytes}) are held by other pictures` };
    }
    this.used += bytes;
    return { granted: true, grant: new PictureGrant(bytes, what) };
  }

  /** One more holder of the same picture (counted once). */
  share(grant: PictureGrant): PictureGrant {
    if (grant.released) throw new Error(`picture budget: ${grant.what} shared after its release`);
    grant.holders++;
    return grant;
  }

  /** One holder lets go; the bytes are freed with the last. Releasing a freed grant does nothing. */
  release(grant: PictureGrant | undefined): void {
    if (!grant || grant.released) return;
    grant.holders--;
    if (!grant.released) return;
    this.used -= grant.bytes;
    const picture = grant.picture;
    grant.picture = undefined;
    if (picture) this.free?.(picture);
    for (const listener of this.releaseListeners) listener();
  }

  /**
   * The display now keeps this picture (a host redraws it, under the PIN box say) and lets go of
   * the one before: the screen holds a share of its grant until the next is shown or the screen
   * clears (undefined). A picture the cache holds too stays counted once.
   */
  shown(grant: PictureGrant | undefined): void {
    if (grant) this.share(grant);
    const previous = this.onScreen;
    this.onScreen = grant;
    this.release(previous);
  }

  /** The grant of the picture on the screen, if it has one. */
  get screen(): PictureGrant | undefined {
    return this.onScreen;
  }

  /** What was reserved turned out larger than what came (a reply under maxReverseBodyBytes): keep `bytes`. */
  trim(grant: PictureGrant, bytes: number): void {
    if (grant.released || bytes >= grant.bytes) return;
    this.used -= grant.bytes - bytes;
    grant.bytes = bytes;
    for (const listener of this.releaseListeners) listener();
  }
}
