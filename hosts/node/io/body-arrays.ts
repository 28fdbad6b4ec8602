// The arrays request bodies are read into on Node (ReceiverPorts.allocateBytes), and what
// becomes of one once the receiver lets go of it (ReceiverPorts.freeBytes): its memory is kept
// for the next large body, or given back at once, never left to V8's next full collection.
//
// Why not plain ArrayBuffers left to the collector: a photo is one array of its size outside
// V8's heap, and the receiver keeps its photos a while (the photo cache: 64 MB, 32 entries on the
// desktop), long enough for their arrays to reach V8's old generation. V8 counts every new
// external array against a limit that starts a full collection, so each photo brought the next
// one nearer: at 16 MB one every two or three pictures, each marking the whole heap (measured:
// 6 to 14 full collections and 103 scavenges for 60 pictures against node:http's 1 and 60), and
// every new array's pages faulted in afresh.
//
// So a large body is a resizable ArrayBuffer: V8 reserves its address space (RESERVED_BYTES,
// address space only) and commits pages as they are written, and such buffers weigh far less in
// its collection schedule (100 of 16 MB, four alive at a time: 17 collections where plain
// arrays took 75). When the
// receiver frees one, it waits in a small pool (POOLED_ARRAYS) for the next large body, which
// resizes it to its own length: its pages are already there, so nothing is allocated, faulted
// in or counted (60 pictures of 16 MB: 0 full collections, 30 scavenges). A pool left unused for
// POOL_IDLE_MS gives its pages back to the kernel. Small bodies are plain arrays: cheap to
// collect, and most bodies are small.
//
// Whatever reads a body array after the receiver let go of it must hold it (`hold`) until done:
// a pooled array's memory becomes the next body's, and an array the pool has no room for is
// given back at once (it reads as empty). The virtual screen holds the picture it shows, the
// screen server a picture it is sending.

import type { ByteAllocator } from '../../../src/http';

/** Arrays below this are plain ones left to the garbage collector: cheap to collect, and most bodies are small. */
export const FREE_MIN_BYTES = 64 * 1024;
/** Address space each large body's buffer reserves, so that a pooled one fits the bodies after it (limits.maxPhotoBytes is 8 MB by default). Only written pages cost memory. */
export const RESERVED_BYTES = 32 * 1024 * 1024;
/** Freed arrays kept for the next bodies: a cache that evicts one photo per photo needs one; the second covers a picture let go of while another arrives. */
export const POOLED_ARRAYS = 2;
/** A pool unused this long gives its memory back. */
export const POOL_IDLE_MS = 5000;

/** ES2024's resizable ArrayBuffer, which Node 20 has (the project's TypeScript lib is ES2023). */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(length: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

function isResizable(buffer: ArrayBuffer): buffer is ResizableArrayBuffer {
  return (buffer as { resizable?: boolean }).resizable === true;
}

/** A plain buffer of `length` bytes, not zero-filled, all its own (not a slice of Node's pool). */
function plainBuffer(length: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(length).buffer as ArrayBuffer;
}

/** Gives `buffer`'s memory back now; every array over it reads as empty from then on. */
function giveBack(buffer: ArrayBuffer): void {
  // Shrunk to nothing, a resizable buffer's pages go back to the kernel at once (its address
  // space goes when the collector finds it unreferenced).
  if (isResizable(buffer)) buffer.resize(0);
  // A plain one is transferred to a clone dropped at once: the old ArrayBuffer (long-lived, in
  // V8's old generation) lets go of the memory, which goes with the clone at the next scavenge.
  else structuredClone(buffer, { transfer: [buffer] });
}

export interface BodyArrayOptions {
  minBytes?: number;
  reservedBytes?: number;
  pooledArrays?: number;
  poolIdleMs?: number;
}

export class BodyArrays {
  private readonly minBytes: number;
  private readonly reservedBytes: number;
  private readonly pooledArrays: number;
  private readonly poolIdleMs: number;
  /**
   * Buffers this allocator made (of at least minBytes) and not yet took back, each with the
   * array it gave out: `free` takes back only that array's buffer, so an array freed twice
   * cannot free the body its pooled buffer went on to hold.
   */
  private readonly made = new WeakMap<ArrayBuffer, Uint8Array>();
  /** Holds on made buffers, by buffer; a buffer freed while held is taken back when the last hold ends. */
  private readonly holds = new Map<ArrayBuffer, { count: number; freed: boolean }>();
  /** Freed buffers waiting for the next large body, their pages still committed. */
  private readonly pool: ResizableArrayBuffer[] = [];
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private usedSinceTimer = false;

  constructor(options: BodyArrayOptions = {}) {
    this.minBytes = options.minBytes ?? FREE_MIN_BYTES;
    this.reservedBytes = options.reservedBytes ?? RESERVED_BYTES;
    this.pooledArrays = options.pooledArrays ?? POOLED_ARRAYS;
    this.poolIdleMs = options.poolIdleMs ?? POOL_IDLE_MS;
  }

  /**
   * A new array of `length` bytes that is not zero-filled (the receiver overwrites it whole: a
   * 16 MB photo zero-filled first cost 1-8 ms more per picture, measured), the whole of its
   * buffer (the core keeps such an array as it is; a view into a larger one it would copy).
   */
  readonly allocate: ByteAllocator = (length) => {
    if (length < this.minBytes) return new Uint8Array(plainBuffer(length), 0, length);
    this.usedSinceTimer = true;
    const buffer = this.fromPool(length) ?? this.reserve(length);
    const bytes = new Uint8Array(buffer, 0, length);
    this.made.set(buffer, bytes);
    return bytes;
  };

  /** The receiver will not read `bytes` again: its memory is reused or goes now, or when the last hold ends. Other arrays are left alone. */
  readonly free = (bytes: Uint8Array): void => {
    const buffer = bytes.buffer as ArrayBuffer;
    if (this.made.get(buffer) !== bytes) return;
    const held = this.holds.get(buffer);
    if (held) held.freed = true;
    else this.takeBack(buffer);
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
      if (held.freed) this.takeBack(buffer);
    };
  }

  /** Buffers waiting in the pool (what the tests read). */
  get pooled(): number {
    return this.pool.length;
  }

  /** Gives the pool's memory back now. */
  drain(): void {
    for (const buffer of this.pool.splice(0)) giveBack(buffer);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * A new resizable buffer of `length` bytes. Where the address space cannot be reserved (a
   * 32-bit process, a `ulimit -v`), a plain one: it is given back when freed, never pooled.
   */
  private reserve(length: number): ArrayBuffer {
    try {
      return new ResizableArrayBuffer(length, { maxByteLength: Math.max(length, this.reservedBytes) });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return plainBuffer(length);
    }
  }

  /** The smallest pooled buffer that can hold `length`, resized to it; undefined when none can. */
  private fromPool(length: number): ResizableArrayBuffer | undefined {
    let best = -1;
    for (let i = 0; i < this.pool.length; i++) {
      if (this.pool[i].maxByteLength >= length && (best < 0 || this.pool[i].maxByteLength < this.pool[best].maxByteLength)) best = i;
    }
    if (best < 0) return undefined;
    const [buffer] = this.pool.splice(best, 1);
    // Growing commits pages past its old length as they are written; shrinking gives the tail back.
    buffer.resize(length);
    return buffer;
  }

  private takeBack(buffer: ArrayBuffer): void {
    this.made.delete(buffer);
    if (isResizable(buffer) && this.pool.length < this.pooledArrays) {
      this.pool.push(buffer);
      this.armIdleTimer();
      return;
    }
    giveBack(buffer);
  }

  /** Drains the pool once a whole POOL_IDLE_MS went by without a large body. */
  private armIdleTimer(): void {
    if (this.idleTimer !== undefined) return;
    this.usedSinceTimer = false;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.pool.length === 0) return;
      if (this.usedSinceTimer) this.armIdleTimer();
      else this.drain();
    }, this.poolIdleMs);
    // An idle pool must not keep the process alive on shutdown.
    this.idleTimer.unref();
  }
}

/** The receiver's (hosts/node/main.ts hands allocate and free to the core; the screen holds what it shows and sends). */
export const nodeBodyArrays = new BodyArrays();
