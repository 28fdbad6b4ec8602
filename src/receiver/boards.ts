// Boards and their budgets, as data: for each board the XS creation sizes its build gets (the
// manifest's `platforms` sections are checked against them by test/xs/boards-manifest.test.ts),
// and for each profile that fits a board the receiver's memory limits there. profiles.ts takes a
// profile's limits from the row of the board that profile needs (PROFILE_BOARDS).
//
// Where the figures come from:
// - Measured in mcsim (SDK 8.2.3) from the app's own memory reports: the idle photo frame holds
//   16.8 K slots and 60 KB of chunk heap; with 6,144 slots and a 96 KB chunk heap (no growth) the
//   app aborts at boot ("Slot allocation: failed in fixed size heap"); with 24 K slots it boots
//   and pairs, then runs out of chunk heap; without a picture budget the photo frame peaked at
//   3.9 MB of chunk heap at its own limits (4.3 MB for a slideshow of 1.2-1.8 MB pictures); each
//   pairing kept about 3.3 KB of chunk heap while the receiver ran.
// - An XS slot is 16 bytes on a 32-bit ESP32 (xsAll.h). XS allocates its slot and chunk heaps
//   with c_malloc, which is malloc on ESP32 (xs/platforms/esp/xsHost.h), at their creation size
//   and once (incremental 0). So the XS heap lives in PSRAM exactly when malloc may return PSRAM:
//   CONFIG_SPIRAM_USE_MALLOC=y, as the SDK's ESP32-S3 base configuration
//   (build/devices/esp32/xsProj-esp32s3/sdkconfig.defaults) and its PSRAM targets qtpys3 and
//   m5stack_cores3 set (blocks over CONFIG_SPIRAM_MALLOC_ALWAYSINTERNAL, 16 KB by default, come
//   from PSRAM). moddable_six sets CONFIG_SPIRAM_USE_CAPS_ALLOC instead: there malloc never
//   returns PSRAM, and its XS heap of PSRAM size needs that one setting changed (boardNotes).
// - Internal RAM of an ESP32-S3: 512 KB of SRAM, of which about 300 KB stay free for the app once
//   Wi-Fi and lwIP run (an estimate from ESP-IDF's figures, not measured here).
// - `proven: true` marks sizes run in mcsim at exactly these creation sizes with no growth
//   (`npm run build:moddable -- --board-sizes <target> ...`, test/kernels/mcsim-board-proof.ts
//   and mcsim-pairing.ts; steps and figures in hosts/moddable/README.md "Board sizes"): the
//   board's profile booted, paired and did its work at its limits without an abort, the peaks
//   of live memory in each row's note. The simulator is 64-bit (32-byte slots, and arrays keep
//   their items as slots in the chunk heap), so the same counts hold less there than on the
//   32-bit ESP32: a pass in mcsim is on the safe side. `false`: budgets chosen, not yet run.

import type { ReceiverLimits } from './limits';

export type BoardName = 'esp32s3' | 'esp32s3-psram-2mb' | 'esp32s3-psram-8mb' | 'media-board' | 'simulator';

/** XS creation sizes (manifest `creation`), fixed: no growth on a board. */
export interface XsCreation {
  /** Slots of the XS heap (16 bytes each on a 32-bit board). */
  readonly heapSlots: number;
  /** Bytes of the chunk heap (strings, ArrayBuffers: every picture lives here). */
  readonly chunkBytes: number;
}

export interface Board {
  readonly name: BoardName;
  readonly summary: string;
  /** The Moddable SDK targets (`mcconfig -p`) of this board, each a manifest `platforms` section. */
  readonly targets: readonly string[];
  /** Bytes of PSRAM (0: none). */
  readonly psramBytes: number;
  /** Whether the XS heap is placed in PSRAM (it cannot fit internal RAM at these sizes). */
  readonly xsHeapInPsram: boolean;
  /** Creation sizes with no growth; undefined on hosts where XS grows its heaps (Linux). */
  readonly creation: XsCreation | undefined;
  /** Whether a run at these sizes has shown them enough (see the file's header). */
  readonly proven: boolean;
  /** Why the figures are what they are. */
  readonly note: string;
}

/** The memory limits a profile gets on a board (the rest are the profile's own, profiles.ts). */
export type BoardLimits = Partial<Pick<ReceiverLimits, 'pictureBudgetBytes' | 'maxPhotoBytes' | 'maxStreamedPhotoBytes' | 'photoCacheBytes' | 'photoCacheEntries' | 'maxReverseBodyBytes' | 'slideshowLookAhead' | 'audioBufferMs'>>;

const KB = 1024;
const MB = 1024 * 1024;

/**
 * Chunk heap the receiver needs besides pictures on a PSRAM photo frame: the idle 60 KB measured,
 * 16 pairings, a dozen connections' heads and small bodies, a pairing's SRP arithmetic, slack.
 */
const PHOTO_FRAME_WORKING_CHUNK = 1 * MB;

export const BOARDS: Readonly<Record<BoardName, Board>> = {
  esp32s3: {
    name: 'esp32s3',
    summary: 'ESP32-S3 without PSRAM (the SDK target esp32s3)',
    targets: ['esp32/*'],
    psramBytes: 0,
    xsHeapInPsram: false,
    // 10 K slots (160 KB) and 128 KB of chunk heap: 288 KB of the ~300 KB internal RAM left with
    // Wi-Fi. Measured in mcsim with growth, the speaker (its code preloaded, @noble/curves not
    // loaded where natives run) holds 8.3 K slots and 75 KB of chunk idle, 8.7 K and 87 KB after
    // pairing and answering (the chunk heap also holds the 16 KB audio ring); at 14 K slots and
    // 64 KB it aborted at boot on the chunk heap. A stream holds its packets for the latency its
    // sender asks, beside the session's own state: at these sizes a classic stream of 0.25 s
    // played whole, 0.3 s aborted, and a session-path stream aborted even at 0.25 s. Pictures
    // cannot fit: no profile that shows them runs here.
    creation: { heapSlots: 10 * KB, chunkBytes: 128 * KB },
    // Proven for pairing and answering, not for streams (above).
    proven: false,
    note: 'speaker without streams: in mcsim at these sizes it booted, paired (hap-controller M1-M6, pair-verify, transient) and answered /info (peaks 8.4 K slots, 87 KB chunk). Streams: latency capped at 0.25 s (audioBufferMs 250, a longer one refused at ANNOUNCE or SETUP naming the limit); a classic ALAC stream of 0.25 s played whole (peaks 9.1 K slots, 114 KB chunk), a session-path one aborted on the chunk heap. Senders ask about 2 s: a speaker that plays needs the 2 MB PSRAM board',
  },
  'esp32s3-psram-2mb': {
    name: 'esp32s3-psram-2mb',
    summary: 'ESP32-S3 with 2 MB of quad PSRAM (the SDK target qtpys3_ili9341: QT Py ESP32-S3 N4R2 with a panel)',
    targets: ['esp32/qtpys3_ili9341'],
    psramBytes: 2 * MB,
    xsHeapInPsram: true,
    // 16 K slots (256 KB): the photo frame peaked at 10.7 K on the 8 MB board's proof. Chunk: 1 MB
    // of pictures and 384 KB working: with 256 KB working the frame aborted on its eighth photo
    // (a 512 KB upload's own array and the quarter that came before it, beside a full cache and
    // the decoder). 1.63 MB of the 2 MB, the rest for lwIP and Wi-Fi buffers malloc puts there.
    creation: { heapSlots: 16 * KB, chunkBytes: 1 * MB + 384 * KB },
    proven: true,
    note: 'a small photo frame: pictures up to 512 KB kept whole, up to 8 MB drawn as they arrive; in mcsim at these sizes: hap-controller paired, three photos of 2.2-8.3 MB drawn as they arrived (chunk peak 367 KB), 100 photos of up to 512 KB and 10 slideshows of 512 KB pictures, no abort; live peaks 10.6 K slots, 1.13 MB chunk. The speaker: paired, then ALAC and PCM streams at 2 s latency on the classic and session paths, each played whole (0 lost); live peaks 11.4 K slots, 438 KB chunk. CONFIG_SPIRAM_USE_MALLOC=y in the target already',
  },
  'esp32s3-psram-8mb': {
    name: 'esp32s3-psram-8mb',
    summary: 'ESP32-S3 with 8 MB of PSRAM (the SDK targets moddable_six (octal) and m5stack_cores3 (quad))',
    targets: ['esp32/moddable_six', 'esp32/m5stack_cores3'],
    psramBytes: 8 * MB,
    xsHeapInPsram: true,
    // 32 K slots (512 KB): 24 K booted and paired; a dozen connections and a slideshow need more.
    // Chunk: the photo frame's 4 MB picture budget and 1 MB working (the unbudgeted peak was 3.9
    // MB at smaller pictures); 5.5 MB of the 8 MB.
    creation: { heapSlots: 32 * KB, chunkBytes: 4 * MB + PHOTO_FRAME_WORKING_CHUNK },
    proven: true,
    note: 'the photo frame; in mcsim at these sizes: hap-controller paired, 100 photos of up to 2 MB (124 MB) and 10 slideshows of 2 MB pictures, no abort; live peaks 10.7 K slots, 4.26 MB chunk. moddable_six sets CONFIG_SPIRAM_USE_CAPS_ALLOC, so its XS heap reaches PSRAM only with CONFIG_SPIRAM_USE_MALLOC=y in a copy of its sdkconfig',
  },
  'media-board': {
    name: 'media-board',
    summary: 'ARM media board on Linux with hardware decoders (hundreds of MB of RAM)',
    targets: [],
    psramBytes: 0,
    xsHeapInPsram: false,
    creation: undefined,
    proven: false,
    note: 'XS on Linux grows its heaps; the picture budget bounds what pictures take',
  },
  simulator: {
    name: 'simulator',
    summary: 'the Moddable desktop simulator (mcsim, the manifest section lin)',
    targets: [],
    psramBytes: 0,
    xsHeapInPsram: false,
    creation: undefined,
    proven: false,
    note: "the SDK's desktop sizes with growth; a board's sizes are given to it to prove that board",
  },
};

/**
 * The board each profile of a device needs at least (profiles.ts names the profiles; the desktop
 * runs on a PC): the row of BOARD_LIMITS its limits come from. Keys are profile names, checked by
 * test/unit/receiver-boards.test.ts (profiles.ts imports this file, not the other way round).
 */
export const PROFILE_BOARDS = {
  // Pictures of 2 MB, a cache of 2 MB: only PSRAM holds them; 8 MB for phones' photo sizes.
  'photo-frame': 'esp32s3-psram-8mb',
  // Senders send realtime audio about 2 s ahead of its playing: those packets need PSRAM. Without
  // it the speaker boots, pairs and answers, and only short classic streams fit (BOARDS.esp32s3).
  speaker: 'esp32s3-psram-2mb',
  'media-board': 'media-board',
} as const satisfies Record<string, BoardName>;

/** A profile that runs on a board of this table. */
export type BoardProfileName = keyof typeof PROFILE_BOARDS;

/**
 * The memory limits of each profile on each board it fits. pictureBudgetBytes bounds every
 * picture byte together (uploads, the shown picture, the cache, slideshow fetches: picture-budget.ts);
 * it holds the cache full plus one picture arriving, so a full cache gives way to an upload, and a
 * shown picture plus the largest arriving one always fit (checked by pictureBudgetProblems).
 */
export const BOARD_LIMITS: readonly { readonly board: BoardName; readonly profile: BoardProfileName; readonly limits: BoardLimits }[] = [
  // A speaker shows no pictures (its routes are not served). Without PSRAM a classic stream's
  // packets, held for the latency its sender asks, fit for 0.25 s: a longer one is refused at
  // ANNOUNCE or SETUP naming the limit, not aborted mid-stream. The PSRAM boards hold the
  // default's 3 s (senders ask about 2 s).
  { board: 'esp32s3', profile: 'speaker', limits: { audioBufferMs: 250 } },
  // 1 MB of pictures: a 512 KB cache (the shown photo and one beside it) and one 512 KB upload
  // (a slideshow reply: its picture in a binary plist, a few hundred bytes more).
  {
    board: 'esp32s3-psram-2mb',
    profile: 'photo-frame',
    limits: { pictureBudgetBytes: 1 * MB + 8 * KB, maxPhotoBytes: 512 * KB, photoCacheBytes: 512 * KB, photoCacheEntries: 2, maxReverseBodyBytes: 512 * KB + 4 * KB, slideshowLookAhead: 1 },
  },
  // 4 MB of pictures: a 2 MB cache (the previous, the shown and the next photo) and one 2 MB upload.
  // A picture shown and not cached is drawn as it arrives (maxStreamedPhotoHeldBytes held): 8 MB.
  {
    board: 'esp32s3-psram-8mb',
    profile: 'photo-frame',
    limits: { pictureBudgetBytes: 4 * MB + 8 * KB, maxPhotoBytes: 2 * MB, maxStreamedPhotoBytes: 8 * MB, photoCacheBytes: 2 * MB, photoCacheEntries: 3, maxReverseBodyBytes: 2 * MB + 4 * KB, slideshowLookAhead: 3 },
  },
  { board: 'esp32s3-psram-2mb', profile: 'speaker', limits: {} },
  { board: 'esp32s3-psram-8mb', profile: 'speaker', limits: {} },
  // 32 MB: a 16 MB cache, the shown picture and a slideshow fetch of 8 MiB.
  {
    board: 'media-board',
    profile: 'media-board',
    limits: { pictureBudgetBytes: 32 * MB, maxPhotoBytes: 4 * MB, photoCacheBytes: 16 * MB, photoCacheEntries: 8, maxReverseBodyBytes: 8 * MB, slideshowLookAhead: 3 },
  },
];

/** Whether `name` names a board of the table. */
export function isBoardName(name: string): name is BoardName {
  return Object.hasOwn(BOARDS, name);
}

/** The limits of `profile` on `board`, or undefined when the profile does not fit that board. */
export function boardLimits(board: BoardName, profile: BoardProfileName): BoardLimits | undefined {
  return BOARD_LIMITS.find((row) => row.board === board && row.profile === profile)?.limits;
}

/**
 * What is wrong with a set of picture limits, in words (empty: nothing): the budget must hold a
 * shown picture and the largest one arriving (an upload or a slideshow reply), else a picture
 * at the limit could never be shown while another is; and the cache must fit in it.
 */
export function pictureBudgetProblems(limits: Pick<ReceiverLimits, 'pictureBudgetBytes' | 'maxPhotoBytes' | 'photoCacheBytes' | 'maxReverseBodyBytes'>): string[] {
  const problems: string[] = [];
  // The largest picture there may be is also the largest shown.
  const largest = Math.max(limits.maxPhotoBytes, limits.maxReverseBodyBytes);
  if (limits.pictureBudgetBytes < 2 * largest) {
    problems.push(`pictureBudgetBytes ${limits.pictureBudgetBytes} holds less than a shown picture and one arriving (2 x ${largest})`);
  }
  if (limits.photoCacheBytes > limits.pictureBudgetBytes) problems.push(`photoCacheBytes ${limits.photoCacheBytes} exceeds pictureBudgetBytes ${limits.pictureBudgetBytes}`);
  return problems;
}
