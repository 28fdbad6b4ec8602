// The jitter buffer of a realtime audio stream: packets placed by RTP sequence number (16-bit,
// wrapping; RFC 3550 A.1) in a ring of fixed size, taken in order from a cursor. A packet behind
// the cursor is late, one as far ahead as the ring's size is outside the window, a second copy is
// a duplicate: each is refused with its reason for the owner to count. A gap (sequence numbers
// skipped) is reported once, when the packet past it arrives, so the owner asks for it again.

/** 16-bit sequence numbers: how far `seq` is ahead of `from` (0 to 65535). */
export function sequenceAhead(seq: number, from: number): number {
  return (seq - from) & 0xffff;
}

/** Half the sequence space: a packet "ahead" by more than this is behind (RFC 3550 A.1). */
const HALF_SEQUENCE_SPACE = 0x8000;

export type PlaceResult =
  | { readonly placed: true; readonly gap?: { readonly firstSequence: number; readonly count: number } }
  | { readonly placed: false; readonly refused: 'late' | 'window' | 'duplicate' };

export class JitterBuffer<Item> {
  private readonly slots: (Item | undefined)[];
  /** The sequence number taken next; undefined until the stream starts. */
  private cursorSeq: number | undefined;
  /** One past the furthest sequence number seen (a packet at or past it reveals a gap). */
  private endSeq = 0;
  private held = 0;
  /**
   * The cursor's place in the ring, counted without wrapping: a slot is found from it, not from
   * the sequence number, whose 65536 values the ring's size need not divide.
   */
  private cursorIndex = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity >= HALF_SEQUENCE_SPACE) throw new RangeError(`jitter buffer of ${capacity} packets: 1 to ${HALF_SEQUENCE_SPACE - 1}`);
    this.slots = new Array<Item | undefined>(capacity).fill(undefined);
  }

  /** The sequence number taken next, once the stream has started. */
  get cursor(): number | undefined {
    return this.cursorSeq;
  }

  /** Packets held. */
  get size(): number {
    return this.held;
  }

  /** Whether any packet is held at or after the cursor (a missing one at the cursor is a gap then, not the stream's end). */
  get holdsAhead(): boolean {
    return this.held > 0;
  }

  /** Drops everything held; the next `start` or placed packet begins the stream again. */
  clear(): void {
    this.slots.fill(undefined);
    this.held = 0;
    this.cursorSeq = undefined;
  }

  /** Starts (or restarts) at `seq`: packets before it are late from now on. */
  start(seq: number): void {
    this.clear();
    this.cursorSeq = seq & 0xffff;
    this.cursorIndex = 0;
    this.endSeq = this.cursorSeq;
  }

  /** Why `seq` would not be placed now, or undefined when it would (checked before a packet is decoded). */
  check(seq: number): 'late' | 'window' | 'duplicate' | undefined {
    if (this.cursorSeq === undefined) return undefined;
    const ahead = sequenceAhead(seq, this.cursorSeq);
    if (ahead >= HALF_SEQUENCE_SPACE) return 'late';
    if (ahead >= this.capacity) return 'window';
    return this.slots[(this.cursorIndex + ahead) % this.capacity] !== undefined ? 'duplicate' : undefined;
  }

  place(seq: number, item: Item): PlaceResult {
    if (this.cursorSeq === undefined) this.start(seq);
    const refused = this.check(seq);
    if (refused) return { placed: false, refused };
    const cursor = this.cursorSeq!;
    const ahead = sequenceAhead(seq, cursor);
    this.slots[(this.cursorIndex + ahead) % this.capacity] = item;
    this.held++;
    const endAhead = sequenceAhead(this.endSeq, cursor);
    if (ahead < endAhead) return { placed: true };
    this.endSeq = (seq + 1) & 0xffff;
    if (ahead === endAhead) return { placed: true };
    return { placed: true, gap: { firstSequence: (cursor + endAhead) & 0xffff, count: ahead - endAhead } };
  }

  /** The packet at the cursor, if it is held. */
  peek(): Item | undefined {
    return this.cursorSeq === undefined ? undefined : this.slots[this.cursorIndex % this.capacity];
  }

  /** Takes the packet at the cursor (undefined: it is missing) and moves the cursor on by one. */
  take(): Item | undefined {
    if (this.cursorSeq === undefined) return undefined;
    const slot = this.cursorIndex % this.capacity;
    const item = this.slots[slot];
    if (item !== undefined) {
      this.slots[slot] = undefined;
      this.held--;
    }
    if (this.endSeq === this.cursorSeq) this.endSeq = (this.endSeq + 1) & 0xffff;
    this.cursorSeq = (this.cursorSeq + 1) & 0xffff;
    // Wrapped at a multiple of the ring's size, so it stays an exact small integer forever.
    this.cursorIndex = (this.cursorIndex + 1) % this.capacity;
    return item;
  }
}
