// Screen mirroring on the virtual screen page: the receiver's access units arrive over a
// WebSocket (GET /mirror, the messages of page-protocol.ts, sent by page-decoder.ts), WebCodecs
// decodes the H.264, and each picture is drawn on a full-screen <canvas> above the photos at its
// presentation time.
//
// Timing: the host sends its monotonic clock when the stream opens; the page keeps the offset to
// its own performance.now() (both are the machine's monotonic clock, so they do not drift) and
// draws a picture at the first animation frame at or after its time. A picture decoded late is
// drawn at once; one whose successor is already due is dropped without being drawn.
//
// Bounds: the page decodes only a few pictures ahead of the one shown (encoded access units wait
// their turn, up to MAX_QUEUED_BYTES; past it the page drops to the next key frame), so decoded
// pictures, which are large, never pile up. A hidden page (a background tab) decodes nothing and
// starts again at the next key frame when it is shown.
//
// For tests and people alike, <body> says what mirroring does:
//   class mirroring          a mirrored picture is on the screen
//   data-mirror-state        off (no stream), waiting (for a key frame), showing, unsupported
//   data-mirror-decoded      pictures decoded since the page opened
//   data-mirror-drawn        pictures drawn
//   data-mirror-dropped      pictures and access units dropped (late, behind, before a key frame)
//   data-mirror-errors       decoder errors (reported to the receiver's log)
//   data-mirror-late-ms      how long after its presentation time the last picture was drawn
//   data-mirror-link         open once the receiver's stream is connected (its clock came), closed
//   data-mirror-replaced     true when a newer page took mirroring over

import {
  KEY_FRAME_FLAG,
  PAGE_MESSAGE,
  PAGE_MESSAGE_HEADER,
  PAGE_MESSAGE_HEADER_BYTES,
  PAGE_PATHS,
  REPLACED_BY_NEWER_PAGE,
  type MirrorPageReport,
} from '../page-protocol';
import { byId } from './dom';

/** Pictures decoding or decoded but not yet due: enough for a smooth stream, few of a 1080p size. */
const MAX_PICTURES_AHEAD = 6;
/** Encoded access units waiting for the decoder, in bytes. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
const RECONNECT_MS = 1000;

type MirrorState = 'off' | 'waiting' | 'showing' | 'unsupported';

/** An encoded access unit not yet given to the decoder. */
interface QueuedUnit {
  /** A view of the message's buffer (its own: no copy). */
  readonly data: Uint8Array;
  /** Presentation time on the page's performance.now() clock. */
  readonly time: number;
  readonly key: boolean;
  /** The stream it came on: where a decoder failure is reported. */
  readonly socket: WebSocket;
}

const body = document.body;
const canvas = byId('mirror', HTMLCanvasElement);
const context = drawingContext(canvas);
const textDecoder = new TextDecoder();

const counts = { decoded: 0, drawn: 0, dropped: 0, errors: 0 };
/** performance.now() minus the host's clock. */
let clockOffset = 0;
/** The codec string of the stream, or null when none runs. */
let codec: string | null = null;
let decoder: VideoDecoder | null = null;
let waitingForKeyFrame = true;
/** True after a decoder error until a picture decodes: errors of one failure are said once. */
let failing = false;
let queued: QueuedUnit[] = [];
let queuedBytes = 0;
/** Decoded pictures not yet drawn, in presentation order. */
let pictures: VideoFrame[] = [];
let frameRequested = false;
/** A new stream (configure, reset) makes pictures of the old one stale: outputs of older decoders are dropped. */
let generation = 0;

/** Opens the mirroring stream (and again whenever it closes), where the browser has WebCodecs. */
export function startMirror(): void {
  setState('off');
  publishCounts();
  if (typeof VideoDecoder !== 'function') {
    // WebCodecs needs a secure context (http://127.0.0.1 and localhost are) and a browser that has it.
    setState('unsupported');
    return;
  }
  connect();
}

function setState(state: MirrorState): void {
  body.dataset.mirrorState = state;
}

function publishCounts(): void {
  body.dataset.mirrorDecoded = String(counts.decoded);
  body.dataset.mirrorDrawn = String(counts.drawn);
  body.dataset.mirrorDropped = String(counts.dropped);
  body.dataset.mirrorErrors = String(counts.errors);
}

/** Tells the receiver's log: `error` (the decoder failed) or `behind` (the page skipped ahead). */
function report(socket: WebSocket, message: string, kind: MirrorPageReport['kind'] = 'error'): void {
  const said: MirrorPageReport = { kind, message };
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(said));
}

/** A fresh decoder for `codec`; its errors are reported and decoding starts again at a key frame. */
function startDecoder(socket: WebSocket, codec: string): void {
  closeDecoder();
  const mine = ++generation;
  decoder = new VideoDecoder({
    output: (frame) => {
      if (mine !== generation) {
        frame.close();
        return;
      }
      counts.decoded++;
      failing = false;
      insertPicture(frame);
      publishCounts();
      requestDraw();
    },
    error: (error) => {
      if (mine === generation) failed(socket, error);
    },
  });
  // The decoder took an access unit: room for the next one.
  decoder.ondequeue = feed;
  // Annex B (no description): the parameter sets come in-band before each key frame.
  decoder.configure({ codec, optimizeForLatency: true });
  waitingForKeyFrame = true;
}

/**
 * The decoder failed (it is closed now): said to the receiver, once until a picture decodes
 * again (a stream the decoder cannot take fails at every key frame); a new decoder starts at
 * the next key frame, which may be here already.
 */
function failed(socket: WebSocket, error: Error): void {
  counts.errors++;
  if (!failing) report(socket, `${error.name}: ${error.message}`);
  failing = true;
  closeDecoder();
  // Access units already here from the next key frame on are good: decoding starts there.
  const next = queued.findIndex((unit) => unit.key);
  const stale = next < 0 ? queued : queued.slice(0, next);
  counts.dropped += stale.length;
  for (const unit of stale) queuedBytes -= unit.data.byteLength;
  queued = next < 0 ? [] : queued.slice(next);
  if (queued.length > 0 && codec !== null) {
    startDecoder(socket, codec);
    waitingForKeyFrame = false;
    feed();
  } else {
    waitingForKeyFrame = true;
    setState('waiting');
  }
  publishCounts();
}

/** Drops what waits and starts decoding again at the next key frame (the page fell behind). */
function skipToKeyFrame(): void {
  dropQueued();
  waitingForKeyFrame = true;
  setState('waiting');
}

function closeDecoder(): void {
  generation++;
  if (decoder && decoder.state !== 'closed') decoder.close();
  decoder = null;
}

function dropQueued(): void {
  counts.dropped += queued.length;
  queued = [];
  queuedBytes = 0;
}

function insertPicture(frame: VideoFrame): void {
  let at = pictures.length;
  while (at > 0 && pictures[at - 1].timestamp > frame.timestamp) at--;
  pictures.splice(at, 0, frame);
}

/** Gives the decoder access units while few pictures are ahead of the screen. */
function feed(): void {
  while (queued.length > 0 && decoder && decoder.state === 'configured' && decoder.decodeQueueSize + pictures.length < MAX_PICTURES_AHEAD) {
    const unit = queued.shift()!;
    queuedBytes -= unit.data.byteLength;
    try {
      decoder.decode(new EncodedVideoChunk({ type: unit.key ? 'key' : 'delta', timestamp: Math.round(unit.time * 1000), data: unit.data }));
    } catch (error) {
      // Refused before decoding (a chunk the decoder cannot take): the error path, at once.
      failed(unit.socket, error instanceof Error ? error : new Error(String(error)));
      return;
    }
  }
}

function requestDraw(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(draw);
}

/** Draws the newest picture that is due; those due before it are dropped unseen. */
function draw(): void {
  frameRequested = false;
  const now = performance.now();
  let due: VideoFrame | undefined;
  while (pictures.length > 0 && pictures[0].timestamp / 1000 <= now) {
    if (due) {
      due.close();
      counts.dropped++;
    }
    due = pictures.shift();
  }
  if (due) {
    if (canvas.width !== due.displayWidth || canvas.height !== due.displayHeight) {
      canvas.width = due.displayWidth;
      canvas.height = due.displayHeight;
    }
    context.drawImage(due, 0, 0, canvas.width, canvas.height);
    body.dataset.mirrorLateMs = (now - due.timestamp / 1000).toFixed(1);
    due.close();
    counts.drawn++;
    body.classList.add('mirroring');
    setState('showing');
    publishCounts();
  }
  feed();
  if (pictures.length > 0) requestDraw();
}

function drawingContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const context = canvas.getContext('2d', { alpha: false });
  if (!context) throw new Error('the mirroring canvas has no 2D context');
  return context;
}

function dropPictures(): void {
  for (const picture of pictures) picture.close();
  counts.dropped += pictures.length;
  pictures = [];
}

function clearPicture(): void {
  dropPictures();
  dropQueued();
  context.clearRect(0, 0, canvas.width, canvas.height);
  body.classList.remove('mirroring');
  publishCounts();
}

function onMessage(socket: WebSocket, data: ArrayBuffer): void {
  if (data.byteLength < PAGE_MESSAGE_HEADER_BYTES) return;
  const view = new DataView(data);
  const kind = view.getUint8(PAGE_MESSAGE_HEADER.kind);
  const key = (view.getUint8(PAGE_MESSAGE_HEADER.flags) & KEY_FRAME_FLAG) !== 0;
  const time = view.getFloat64(PAGE_MESSAGE_HEADER.time, true);
  if (kind === PAGE_MESSAGE.clock) {
    clockOffset = performance.now() - time;
    body.dataset.mirrorLink = 'open';
  } else if (kind === PAGE_MESSAGE.configure) {
    codec = textDecoder.decode(new Uint8Array(data, PAGE_MESSAGE_HEADER_BYTES));
    dropQueued();
    startDecoder(socket, codec);
    setState('waiting');
    publishCounts();
  } else if (kind === PAGE_MESSAGE.accessUnit) {
    onAccessUnit(socket, data, time, key);
  } else if (kind === PAGE_MESSAGE.reset) {
    codec = null;
    closeDecoder();
    clearPicture();
    setState('off');
  }
}

function onAccessUnit(socket: WebSocket, data: ArrayBuffer, time: number, key: boolean): void {
  if (codec === null) return;
  // A page nobody sees (a tab in the background, where animation frames stop) decodes
  // nothing; shown again, it starts at the next key frame.
  if (document.hidden && !waitingForKeyFrame) {
    skipToKeyFrame();
    dropPictures();
  }
  if (waitingForKeyFrame && (!key || document.hidden)) {
    counts.dropped++;
    publishCounts();
    return;
  }
  if (queuedBytes + data.byteLength > MAX_QUEUED_BYTES) {
    counts.dropped++;
    // Not an error of the stream: a line in the receiver's log says the screen skipped.
    if (!waitingForKeyFrame) report(socket, `${queued.length} access units waiting to be decoded`, 'behind');
    skipToKeyFrame();
    publishCounts();
    return;
  }
  // After an error the failed decoder is gone: a new one starts with this key frame.
  if (!decoder) startDecoder(socket, codec);
  waitingForKeyFrame = false;
  // A view, not a copy: the message's buffer is this access unit's alone.
  const unit = new Uint8Array(data, PAGE_MESSAGE_HEADER_BYTES);
  queued.push({ data: unit, time: time + clockOffset, key, socket });
  queuedBytes += unit.byteLength;
  feed();
}

function connect(): void {
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${PAGE_PATHS.mirror}`);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (event: MessageEvent<unknown>) => {
    if (event.data instanceof ArrayBuffer) onMessage(socket, event.data);
  };
  socket.onclose = (event) => {
    body.dataset.mirrorLink = 'closed';
    codec = null;
    closeDecoder();
    clearPicture();
    setState('off');
    // A newer page shows mirroring now: this one stays off (reload to take it back).
    if (event.code === REPLACED_BY_NEWER_PAGE) {
      body.dataset.mirrorReplaced = 'true';
      return;
    }
    setTimeout(connect, RECONNECT_MS);
  };
}
