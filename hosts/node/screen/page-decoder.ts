// The Node host's VideoDecoder port (src/platform.ts): screen mirroring decoded and shown by the
// virtual screen page. The host does not decode; it hands the codec string and the Annex B access
// units to the page over a WebSocket (GET /mirror on the screen server), where WebCodecs decodes
// them and draws each picture at its presentation time (page/mirror.ts).
//
// One page shows mirroring: the newest to connect (a second tab takes over; the first is told so
// and closes its stream). A page that joins mid-stream, or one that falls behind, starts again at
// the next key frame: a decoder cannot begin anywhere else.
//
// The messages both ways (a 10-byte binary header and a payload to the page, JSON reports from
// it) are laid out in page-protocol.ts, which the page reads too.

import type { WebSocket } from 'ws';
import { CountedLog } from '../../../src/counted-log';
import type { Logger, ScreenGeometry, VideoDecoder, VideoDecoderConfig } from '../../../src/platform';
import { KEY_FRAME_FLAG, MIRROR_REPORT_KINDS, type MirrorPageReport, PAGE_MESSAGE, PAGE_MESSAGE_HEADER, PAGE_MESSAGE_HEADER_BYTES, REPLACED_BY_NEWER_PAGE } from './page-protocol';

/** Longest text of a page's error kept in a log line (a page is local, but its text is still input). */
const MAX_PAGE_TEXT = 200;

/** Why a wait for a key frame began, as said when it ends. */
const JOINED_LATE = 'the page joined mid-stream';
const FELL_BEHIND = 'the page fell behind';

interface PageDecoderOptions {
  readonly geometry: ScreenGeometry;
  /** The host's monotonic clock (hosts/node/io/ports.ts nodeClock.now): presentation times are on it. */
  readonly now: () => number;
  readonly log: Logger;
  /** Most bytes queued to the page (ReceiverLimits.mirrorDisplayQueueBytes); past it, drop to the next key frame. */
  readonly maxQueueBytes: number;
}

export class PageDecoder implements VideoDecoder {
  readonly geometry: ScreenGeometry;
  private page: WebSocket | undefined;
  private codec: string | undefined;
  /** True from a (re)start until a key frame goes out: nothing before it can be decoded. */
  private waitingForKeyFrame = true;
  /** Access units dropped in the current wait for a key frame (said when it ends). */
  private dropped = 0;
  /** Why the current wait began, when it is worth a line at its end. */
  private dropReason: string | undefined;
  private readonly encoder = new TextEncoder();
  /** The page's reports: a page that reports in a loop gets a line per interval, with a count. */
  private readonly pageReports = new CountedLog();

  constructor(private readonly options: PageDecoderOptions) {
    this.geometry = options.geometry;
  }

  /** Whether a page is connected to show mirroring. */
  get hasPage(): boolean {
    return this.page !== undefined;
  }

  /**
   * A page opened the mirroring stream (the screen server checked where it comes from). It
   * becomes the one that shows mirroring; an older page is told it was replaced.
   */
  attach(socket: WebSocket): void {
    const previous = this.page;
    this.page = socket;
    if (previous) {
      previous.close(REPLACED_BY_NEWER_PAGE, 'a newer page shows mirroring');
      this.options.log('info', 'screen: a newer page shows mirroring; the older one stops');
    }
    socket.on('close', () => {
      if (this.page === socket) this.page = undefined;
    });
    // A page that breaks the protocol (a report past the size limit, a bad frame): ws closes it.
    socket.on('error', (error) => this.options.log('warn', `screen: the mirroring page's stream failed: ${error.message}`));
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.fromPage(String(data));
    });
    this.send(PAGE_MESSAGE.clock, 0, this.options.now());
    if (this.codec !== undefined) {
      this.send(PAGE_MESSAGE.configure, 0, 0, this.encoder.encode(this.codec));
      this.options.log('info', 'screen: a page joined mid-stream: mirroring shows there from the next key frame');
      this.waitForKeyFrame(JOINED_LATE);
    }
  }

  configure(config: VideoDecoderConfig): void {
    this.codec = config.codec;
    // The parameter sets come in-band before every key frame (the port's contract): the page's
    // decoder takes Annex B without a description, and starts at the next key frame.
    this.send(PAGE_MESSAGE.configure, 0, 0, this.encoder.encode(config.codec));
    this.waitForKeyFrame(undefined);
  }

  decode(accessUnit: Uint8Array, presentationTime: number, keyFrame: boolean): void {
    const page = this.page;
    if (!page || this.codec === undefined) return;
    if (this.waitingForKeyFrame && !keyFrame) {
      this.dropped++;
      return;
    }
    if (page.bufferedAmount + accessUnit.length > this.options.maxQueueBytes) {
      // Said once per wait: a page that stays behind does not fill the log.
      if (this.dropReason !== FELL_BEHIND) {
        this.options.log('warn', `screen: the mirroring page falls behind (${page.bufferedAmount} bytes queued, limit mirrorDisplayQueueBytes ${this.options.maxQueueBytes}): dropping to the next key frame`);
        this.waitForKeyFrame(FELL_BEHIND);
      }
      this.dropped++;
      return;
    }
    if (this.waitingForKeyFrame) {
      if (this.dropReason !== undefined) this.options.log('info', `screen: mirroring shown again from a key frame (${this.dropReason}; ${this.dropped} access units dropped)`);
      this.waitingForKeyFrame = false;
      this.dropReason = undefined;
    }
    this.send(PAGE_MESSAGE.accessUnit, keyFrame ? KEY_FRAME_FLAG : 0, presentationTime, accessUnit);
  }

  reset(): void {
    this.codec = undefined;
    this.waitForKeyFrame(undefined);
    this.send(PAGE_MESSAGE.reset, 0, 0);
  }

  /** Closes the page's stream (the receiver stops). */
  close(): void {
    this.page?.close(1001, 'the receiver stops');
    this.page = undefined;
  }

  /** Drops access units until a key frame; `reason`, when given, is said when the wait ends. */
  private waitForKeyFrame(reason: string | undefined): void {
    this.waitingForKeyFrame = true;
    this.dropped = 0;
    this.dropReason = reason;
  }

  private send(kind: number, flags: number, time: number, payload?: Uint8Array): void {
    const page = this.page;
    if (!page || page.readyState !== page.OPEN) return;
    const header = Buffer.allocUnsafe(PAGE_MESSAGE_HEADER_BYTES);
    header[PAGE_MESSAGE_HEADER.kind] = kind;
    header[PAGE_MESSAGE_HEADER.flags] = flags;
    header.writeDoubleLE(time, PAGE_MESSAGE_HEADER.time);
    // One message in two frames: the header, then the access unit as it is (no copy of every
    // frame to put 10 bytes in front; the page receives one message all the same).
    if (!payload) page.send(header, { binary: true });
    else {
      page.send(header, { binary: true, fin: false });
      page.send(payload, { binary: true, fin: true });
    }
  }

  private fromPage(text: string): void {
    let report: unknown;
    try {
      report = JSON.parse(text);
    } catch {
      return;
    }
    const { kind, message } = (report ?? {}) as { [field in keyof MirrorPageReport]?: unknown };
    if (typeof message !== 'string' || !(MIRROR_REPORT_KINDS as readonly unknown[]).includes(kind)) return;
    const count = this.pageReports.note(this.options.now());
    if (count === 0) return;
    const shown = JSON.stringify(message.length > MAX_PAGE_TEXT ? `${message.slice(0, MAX_PAGE_TEXT)}...` : message);
    const more = count > 1 ? ` (${count - 1} more reports of the page since the last line)` : '';
    if (kind === 'error') this.options.log('warn', `screen: the mirroring page's decoder failed (${shown}): shown again from the next key frame${more}`);
    else this.options.log('warn', `screen: the mirroring page cannot decode as fast as the stream comes (${shown}): it skips to the next key frame${more}`);
  }
}

/** `1920x1080@60` (width x height @ refreshes per second) as a ScreenGeometry; undefined when malformed. */
export function parseMirrorSize(text: string): ScreenGeometry | undefined {
  const match = /^(\d{2,5})x(\d{2,5})(?:@(\d{1,3}(?:\.\d{1,3})?))?$/.exec(text);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const hertz = match[3] === undefined ? 60 : Number(match[3]);
  // H.264 level 5.2 tops out at 4096x2304; WebCodecs decodes up to 8192 wide in Chromium.
  if (width < 16 || height < 16 || width > 8192 || height > 8192 || hertz < 1 || hertz > 240) return undefined;
  return { width, height, refreshRate: 1 / hertz, overscanned: false };
}

/** What the mirroring stream.xml says without --mirror-size: a 1080p display at 60 Hz. */
export const DEFAULT_MIRROR_GEOMETRY: ScreenGeometry = { width: 1920, height: 1080, refreshRate: 1 / 60, overscanned: false };
