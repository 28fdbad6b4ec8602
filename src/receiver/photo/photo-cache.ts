// The photo cache (spec 3 "cached photo", 4.1 PUT /photo cacheOnly and displayCached): JPEG
// pictures by AssetKey, bounded in bytes and in entries, the least recently used leaving first.
//
// Senders keep the photos either side of the one shown in the cache so a swipe shows the next
// at once (displayCached); when the key is gone they get 412 and send the picture in full, so
// evicting is always safe. spec 8 names no cache size: the limits are the receiver's own
// (ReceiverLimits.photoCacheBytes and photoCacheEntries, per profile). Each entry also holds its
// picture's grant in the picture budget (picture-budget.ts), given back when it leaves.

import type { PictureBudget, PictureGrant } from '../media/picture-budget';

/**
 * `bytes` in a buffer of their own: a view into a larger buffer (a socket read) would hold the
 * whole buffer, so it is copied; bytes that are a whole buffer already are kept as they are.
 */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

interface CachedPhoto {
  /** X-Vendor-AssetKey (spec 2.6: a UUID string). */
  readonly key: string;
  readonly jpeg: Uint8Array;
  /** The sender session that sent it (X-Vendor-Session-ID), if it named one. */
  readonly sessionId: string | undefined;
  /** Its bytes in the picture budget (shared with the screen when it is shown). */
  readonly grant?: PictureGrant;
}

interface PhotoCacheLimits {
  /** Most bytes of JPEG data held, all entries together. */
  readonly maxBytes: number;
  /** Most entries held. */
  readonly maxEntries: number;
}

/** What `put` did: whether the photo is now cached, and which keys left to make room. */
interface PutResult {
  readonly stored: boolean;
  readonly evicted: string[];
}

export class PhotoCache {
  /** Entries in order of use, least recent first (a Map keeps insertion order). */
  private readonly entries = new Map<string, CachedPhoto>();
  private total = 0;

  constructor(
    readonly limits: PhotoCacheLimits,
    /** Where the entries' bytes are counted; the cache holds a share of each entry's grant. */
    private readonly pictures?: PictureBudget,
  ) {}

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of JPEG data held. */
  get bytes(): number {
    return this.total;
  }

  /** The keys, least recently used first (the next to leave is first). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** Whether `key` is cached; does not count as a use. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The photo under `key`, which becomes the most recently used; undefined when not cached. */
  use(key: string): CachedPhoto | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Stores `jpeg` under `key` as the most recently used, replacing what the key held, and evicts
   * the least recently used entries until both limits hold. A picture larger than the whole
   * byte limit is not stored (a later displayCached of it is answered 412, and the sender sends
   * it in full); it evicts nothing, but drops an older picture under the same key. `grant` is the
   * picture's in the picture budget: the cache holds a share of it while the entry stays.
   */
  put(key: string, jpeg: Uint8Array, sessionId: string | undefined, grant?: PictureGrant): PutResult {
    this.delete(key);
    if (jpeg.length > this.limits.maxBytes) return { stored: false, evicted: [] };
    const evicted: string[] = [];
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.limits.maxEntries && this.total + jpeg.length <= this.limits.maxBytes) break;
      this.delete(oldest);
      evicted.push(oldest);
    }
    const own = ownBytes(jpeg);
    if (grant && this.pictures) this.pictures.share(grant);
    this.entries.set(key, grant && this.pictures ? { key, jpeg: own, sessionId, grant } : { key, jpeg: own, sessionId });
    this.total += own.length;
    return { stored: true, evicted };
  }

  /** Forgets `key`; true when it was cached. */
  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.total -= entry.jpeg.length;
    this.pictures?.release(entry.grant);
    return true;
  }

  /** Forgets every photo a session sent (its photo session ended); returns how many. */
  deleteSession(sessionId: string): number {
    let count = 0;
    for (const entry of [...this.entries.values()]) {
      if (entry.sessionId === sessionId && this.delete(entry.key)) count++;
    }
    return count;
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
  }
}
