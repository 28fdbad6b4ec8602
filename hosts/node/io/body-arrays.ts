// The arrays request bodies are read into on Node (ReceiverPorts.allocateBytes), and their
// memory given back as soon as the receiver lets go of them (ReceiverPorts.freeBytes), not at
// V8's next full collection.
//
// Why: a photo is one array of its size outside V8's heap. The baseline of a node:http server
// drops each body at once, and a scavenge frees it. The receiver keeps its photos a while (the
// photo cache: 64 MB, 32 entries on the desktop), so their arrays live long enough to be moved to
// V8's old generation, and an old array's memory is freed only by a full collection. V8 counts the
// external bytes allocated since the last full collection against the old generation's
// allocation limit, so every photo brought the next full collection nearer: at 16 MB one every
// three or four pictures, each marking the receiver's whole heap, and the freed memory given
// to the kernel and faulted in again (2,000 to 2,900 page faults per 16 MB photo against the
// baseline's 550). Freed here, the array is detached (its memory moves to a new, young
// ArrayBuffer that nothing references, freed by the next scavenge) and V8 no longer counts it.
//
// A detached array reads as empty, and its memory may go while a socket still writes from it:
// whatever reads a body array after the receiver let go of it must hold it (`hold`) until done.
// The virtual screen holds the picture it shows, the screen server a picture it is sending.

import type { ByteAllocator } from '../../../src/http';

/** Arrays below this are left to the garbage collector: they are cheap to collect, and most bodies are small. */
export const FREE_MIN_BYTES = 64 * 1024;

export class BodyArrays {
  /** Buffers this allocator made (of at least minBytes): the only ones `free` detaches. */
  private readonly made = new WeakSet<ArrayBuffer>();
  /** Holds on made buffers, by buffer; a buffer freed while held is detached when the last hold ends. */
  private readonly holds = new Map<ArrayBuffer, { count: number; freed: boolean }>();

  constructor(private readonly minBytes = FREE_MIN_BYTES) {}

  /**
   * A new array of `length` bytes that is not zero-filled (the receiver overwrites it whole: a
   * 16 MB photo zero-filled first cost 1-8 ms more per picture, measured). A plain Uint8Array
   * over the Buffer's own ArrayBuffer: a Buffer's slice() would be a view, not the copy the core
   * means by it.
   */
  readonly allocate: ByteAllocator = (length) => {
    const buffer = Buffer.allocUnsafeSlow(length).buffer as ArrayBuffer;
    if (length >= this.minBytes) this.made.add(buffer);
    return new Uint8Array(buffer, 0, length);
  };

  /** The receiver will not read `bytes` again: its memory goes now, or when the last hold ends. Other arrays are left alone. */
  readonly free = (bytes: Uint8Array): void => {
    const buffer = bytes.buffer as ArrayBuffer;
    if (!this.made.has(buffer)) return;
    const held = this.holds.get(buffer);
    if (held) held.freed = true;
    else this.detach(buffer);
  };

  /** Keeps `bytes` readable until the returned function is called (once is enough; more do nothing). */
  hold(bytes: Uint8Array): () => void {
    const buffer = bytes.buffer as ArrayBuffer;
    if (!this.made.has(buffer)) return () => {};
    let held = this.holds.get(buffer);
    if (!held) this.holds.set(buffer, (held = { count: 0, freed: false }));
    held.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      held.count--;
      if (held.count > 0) return;
      this.holds.delete(buffer);
      if (held.freed) this.detach(buffer);
    };
  }

  private detach(buffer: ArrayBuffer): void {
    this.made.delete(buffer);
    // Transferred to a clone that is dropped at once: the old ArrayBuffer (long-lived, in V8's
    // old generation) lets go of the memory, and V8 stops counting it there.
    structuredClone(buffer, { transfer: [buffer] });
  }
}

/** The receiver's (hosts/node/main.ts hands allocate and free to the core; the screen holds what it shows and sends). */
export const nodeBodyArrays = new BodyArrays();
