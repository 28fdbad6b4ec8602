// Replies that depend only on receiver state (RTSP GET /info, GET /server-info, GET
// /slideshow-features, RTSP OPTIONS): built once for a state and kept until that state changes,
// instead of rebuilding a record and encoding a plist on every request (/info took
// 147 us of CPU per request, most of it the record, TXT and binary plist built again).
//
// The handler names what its reply is built from (`state`, compared value by value with
// Object.is on every lookup, so nothing has to remember to invalidate the cache) and, when one
// state has several replies, which one (`variant`: a language, a sender's address).

export class ReplyCache<T> {
  private state: readonly unknown[] | undefined;
  private readonly replies = new Map<string, T>();

  /** `maxVariants`: replies kept for one state; when full, the oldest goes first. */
  constructor(private readonly maxVariants = 16) {
    if (!(Number.isInteger(maxVariants) && maxVariants >= 1)) throw new RangeError(`ReplyCache: maxVariants ${maxVariants} is not a positive integer`);
  }

  /**
   * The reply `variant` built from `state`: the kept one when `state` equals the state it was
   * built from, else `build()`'s, which is kept. A changed state drops every kept reply.
   */
  get(state: readonly unknown[], variant: string, build: () => T): T {
    if (!this.sameState(state)) {
      this.replies.clear();
      // A copy: the caller may reuse its array.
      this.state = state.slice();
    }
    const kept = this.replies.get(variant);
    if (kept !== undefined) return kept;
    const reply = build();
    if (this.replies.size >= this.maxVariants) {
      // Map iterates in insertion order: the first key is the oldest.
      const oldest = this.replies.keys().next();
      if (!oldest.done) this.replies.delete(oldest.value);
    }
    this.replies.set(variant, reply);
    return reply;
  }

  /** How many replies are kept now (for tests). */
  get size(): number {
    return this.replies.size;
  }

  private sameState(state: readonly unknown[]): boolean {
    const kept = this.state;
    if (kept === undefined || kept.length !== state.length) return false;
    for (let i = 0; i < state.length; i++) if (!Object.is(kept[i], state[i])) return false;
    return true;
  }
}
