// The ports a host implements: time, randomness, sockets, advertising, storage, display, logging.
// The core reaches the world only through these (DESIGN 2 and 4). Shapes follow ECMA-419:
// callbacks, byte arrays, explicit close.

/** Monotonic and wall-clock time: what the core reads. */
export interface TimeSource {
  /** Monotonic milliseconds (never goes back; unrelated to the wall clock). */
  now(): number;
  /** Milliseconds since the Unix epoch, for Date headers and plist dates. */
  wallTime(): number;
}

/**
 * Time, and the host's timers. Only drivers arm timers: a ConnectionDriver one per connection,
 * a TimerDriver one for the receiver's features (src/receiver/timers.ts); a feature sets named
 * deadlines in the receiver's timer table instead, and sees a TimeSource.
 */
export interface Clock extends TimeSource {
  setTimer(ms: number, callback: () => void): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** Opaque to the core. */
export type TimerHandle = unknown;

/** Cryptographically strong random bytes (the host seeds it from hardware where it can). */
export type RandomSource = (length: number) => Uint8Array;

/**
 * One TCP connection, accepted by a listener or opened by the host. The core never calls it
 * directly: a ConnectionDriver (src/receiver/connection/connection-driver.ts) moves bytes between it and a sans-I/O
 * connection, and does the flow control.
 */
export interface Connection {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  /** Queues bytes for sending. Returns false when the host's buffer is full (backpressure). */
  write(bytes: Uint8Array): boolean;
  /** Closes after queued bytes are sent. */
  close(): void;
  /**
   * Stops delivering bytes until resume() (the core holds enough): Node's `socket.pause()`, on
   * ECMA-419 simply not reading. Bytes wait in the host's and the peer's buffers (TCP flow control).
   */
  pause(): void;
  resume(): void;
  /** Set by the core: bytes arrived. */
  onData: (bytes: Uint8Array) => void;
  /** Set by the core: the peer closed or the connection failed (`error` names why). */
  onClose: (error?: string) => void;
  /** Set by the core: queued bytes drained after write() returned false. */
  onDrain: () => void;
}

/** A service to publish by DNS-SD (RFC 6763). TXT entries are ordered key/value strings. */
export interface ServiceRecord {
  /** Instance name, e.g. `Living Room` or `5855CA1AE288@Living Room`. */
  name: string;
  /** Service type with protocol, e.g. `_vendorplay._tcp`. */
  type: string;
  port: number;
  txt: [string, string][];
}

/** Publishes services by multicast DNS. */
export interface Advertiser {
  publish(service: ServiceRecord): void;
  /** Replaces the TXT record of a published service (announced again). */
  update(service: ServiceRecord): void;
  /** Sends goodbye packets and forgets the service. */
  withdraw(service: ServiceRecord): void;
}

/**
 * Small records (pairing identity and peers). Writes are atomic: a record is whole or absent. A
 * write of the bytes the record already holds may be skipped (flash wears, a flush is slow).
 */
export interface Store {
  get(key: string): Uint8Array | undefined;
  /** Durable once it returns: a crash or power cut right after keeps it (pairings, identity). */
  put(key: string, value: Uint8Array): void;
  delete(key: string): void;
  /**
   * Like put, for a record a crash may lose at little cost (the group id): whole or absent, but
   * not flushed to the medium, so the write is cheap. Hosts that cannot tell the two leave it out.
   */
  putUnflushed?(key: string, value: Uint8Array): void;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * A sink for log lines. A host's logger that drops the lines past a level names that level, so
 * a path run for every request can skip building a line nobody would see (logsAt).
 */
export type Logger = ((level: LogLevel, message: string) => void) & { readonly level?: LogLevel };

/** Severity order, for filtering by a configured level. */
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/**
 * A Logger that keeps the lines at `level` and above (in LOG_LEVELS order), names that level,
 * and hands each kept line to `write`: a host only says how a line is written.
 */
export function leveledLogger(level: LogLevel, write: (level: LogLevel, message: string) => void): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const log = (lineLevel: LogLevel, message: string): void => {
    if (LOG_LEVELS.indexOf(lineLevel) <= threshold) write(lineLevel, message);
  };
  return Object.assign(log, { level });
}

/** Whether `log` keeps lines of `level` (a logger that names no level keeps them all). */
export function logsAt(log: Logger, level: LogLevel): boolean {
  return log.level === undefined || LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(log.level);
}

/**
 * What the media session shows or plays (src/receiver/media): spec 2.1 calls all but mirroring
 * and audio `receiving video`.
 */
export type ShownMedia = 'photo' | 'slideshow' | 'video' | 'mirror' | 'audio';

/** What the receiver is doing, for a status line on the screen (its words: src/receiver/media/status-words.ts). */
export interface DisplayStatus {
  /** The receiver's name. */
  name: string;
  /** The activity (spec 2.1), e.g. `idle`, `playingLocalMedia`. */
  activity: string;
  /** What the media session shows, the newest that began; none while it shows nothing. */
  media?: ShownMedia;
  /** Slideshow state (spec 3) when a slideshow runs: `loading`, `playing`, `stopped`. */
  slideshow?: string;
}

/** One component of a JPEG frame (ITU-T T.81 B.2.2): its sampling factors and quantization table. */
export interface JpegComponent {
  readonly id: number;
  readonly horizontal: number;
  readonly vertical: number;
  readonly quantTable: number;
}

/**
 * A JPEG's frame header as the core reads it (src/receiver/media/jpeg.ts) before a picture is
 * accepted: enough for a display to say whether its decoder reads the picture.
 */
export interface JpegFrame {
  readonly width: number;
  readonly height: number;
  /** The coding process its start-of-frame marker names (T.81 table B.1). */
  readonly process: 'baseline' | 'extended' | 'progressive' | 'lossless';
  /** Arithmetic entropy coding (SOF9-15) instead of Huffman. */
  readonly arithmetic: boolean;
  /** A frame of a hierarchical picture (SOF5-7, SOF13-15). */
  readonly differential: boolean;
  /** Bits per sample (8 for nearly every photo; 12 in some medical and raw-derived files). */
  readonly precision: number;
  /** In frame-header order (1: grayscale, 3: YCbCr; sampling factors per component). */
  readonly components: readonly JpegComponent[];
}

/**
 * What realtime audio plays, as its sender describes it (src/audio/now-playing.ts reads it: DMAP
 * metadata, the artwork, the `progress:` text parameter). Each part is absent until the sender
 * sends it; `nowPlayingSeconds` (src/audio/now-playing.ts) turns progress into seconds.
 */
export interface NowPlaying {
  readonly title?: string;
  readonly artist?: string;
  readonly album?: string;
  readonly genre?: string;
  /** The cover art as the sender sent it (`image/jpeg` or `image/png`). */
  readonly artwork?: { readonly mime: string; readonly bytes: Uint8Array };
  /** RTP times (frames at sampleRate) of the track's start, the frame playing now, its end. */
  readonly progress?: { readonly startRtp: number; readonly currentRtp: number; readonly endRtp: number; readonly sampleRate: number };
}

/**
 * The screen of a frame. The Node host draws a virtual screen in a web page; the Moddable host
 * decodes JPEGs with commodetto onto the panel. A host without a screen (a speaker) has none.
 */
export interface Display {
  /**
   * Shows a JPEG picture, with a transition when given: one of TRANSITIONS
   * (src/receiver/media/transitions.ts), resolved by the core from the sender's name (spec 4.1
   * X-Vendor-Transition, 2.7 settings.theme); without one, at once. A display may go on
   * drawing after it returns (a board decodes a large picture in slices between other work).
   */
  showPhoto(jpeg: Uint8Array, transition?: string): void;
  /**
   * Why this screen's decoder cannot read a JPEG with this frame header (a board's decoder may
   * take baseline pictures only, or some sampling factors), or undefined when it can. Asked
   * before a picture is accepted, so the sender gets a refusal instead of a 200 and a blank
   * screen. A display that decodes every JPEG (a browser) leaves it out.
   */
  cannotShow?(frame: JpegFrame): string | undefined;
  /**
   * Starts drawing a JPEG that arrives in pieces (a board's decoder that takes its input as it
   * comes): the core hands it a picture that need not be kept, once its header has passed
   * cannotShow, so a picture larger than the board could hold whole is never held. It replaces
   * the picture shown, as showPhoto does; a later showPhoto, clear or stream replaces it in turn
   * (its sink then takes the rest and drops it). A display that decodes only whole pictures
   * leaves it out.
   */
  openPhotoStream?(frame: JpegFrame, transition?: string): PhotoStreamSink;
  /** Clears the picture (photo session or slideshow stopped). */
  clear(): void;
  showStatus(status: DisplayStatus): void;
  /** Shows the pairing PIN (POST /pair-pin-start), until hidePin. */
  showPin(pin: string): void;
  hidePin(): void;
  /**
   * Shows what realtime audio plays (title, artist, album, artwork, progress), the whole of it
   * on every change; undefined: nothing plays. A display without room for it leaves it out.
   */
  showNowPlaying?(playing: NowPlaying | undefined): void;
}

/**
 * Where a streamed picture's bytes go (Display.openPhotoStream), in order, from its first byte
 * (SOI) to its end-of-image marker. The core stops handing it more while it holds more than
 * limits.maxStreamedPhotoHeldBytes, and goes on when told `onDrained`.
 */
export interface PhotoStreamSink {
  /** The next piece: a view valid during the call only (a sink copies what it keeps). */
  write(bytes: Uint8Array): void;
  /** Bytes written and not yet consumed by the decoder. */
  readonly heldBytes: number;
  /** Set by the core: called when heldBytes has fallen (the decoder consumed some). */
  onDrained: () => void;
  /**
   * Every byte has been written: finish the picture, then call `done` once, with undefined when
   * it is drawn (or was replaced meanwhile), or why the decoder could not read it.
   */
  end(done: (failure: string | undefined) => void): void;
  /** The picture will not come whole (the connection closed, a refusal): stop and drop what is held. */
  abort(reason: string): void;
}

/** A span of media time (spec 2.9 range: start and duration, seconds). */
export interface TimeRange {
  readonly start: number;
  readonly duration: number;
}

/**
 * What a player is doing. `idle`: nothing loaded; `loading`: fetching until it can play;
 * `playing` and `paused` as their names say (rate 0 is `paused`); `ended`: played to the end;
 * `failed`: the item cannot play (`PlayerReport.error` says why).
 */
export type PlayerState = 'idle' | 'loading' | 'playing' | 'paused' | 'ended' | 'failed';

/**
 * The player's whole state, reported on every change (and while playing at least a few times a
 * second: the core extrapolates position from the last report at the reported rate). Counters
 * (bytes, stalls...) cover the item loaded last, from its load.
 */
export interface PlayerReport {
  /** The item this report is about: the value load() was given as `item`. */
  readonly item: number;
  readonly state: PlayerState;
  /** Seconds from the item's start. */
  readonly position: number;
  /** Seconds; 0 while unknown, Infinity for a live stream without an end. */
  readonly duration: number;
  /** The rate playing now (0 while paused or loading). */
  readonly rate: number;
  readonly readyToPlay: boolean;
  readonly bufferEmpty: boolean;
  readonly bufferFull: boolean;
  readonly likelyToKeepUp: boolean;
  readonly loaded: readonly TimeRange[];
  readonly seekable: readonly TimeRange[];
  /** Bytes of media really fetched for the item (spec 2.10 bytes). */
  readonly bytes: number;
  /** Fetches made for the item (spec 2.10 sc-count: HTTP requests answered). */
  readonly requests: number;
  /** Times playback stopped for want of data after it had started (spec 2.10 c-stalls). */
  readonly stalls: number;
  readonly framesDropped: number;
  /** Seconds of media watched (played at any rate, seeks not counted). */
  readonly watched: number;
  /** Seconds from load() to the first frame drawn, once there is one. */
  readonly startupTime?: number;
  /** Address of the server the media came from (spec 2.10 s-ip), once known. */
  readonly serverAddress?: string;
  /** Why the item cannot play (state `failed`), or the last error it recovered from. */
  readonly error?: PlayerError;
}

/** A player's error, in AVFoundation's terms (spec 2.10's error log reads them). */
export interface PlayerError {
  readonly code: number;
  readonly domain: string;
  readonly message: string;
}

/** Where an item starts: seconds from its start, or a fraction (0..1) of its duration once known. */
export interface StartPosition {
  readonly seconds?: number;
  readonly fraction?: number;
}

/**
 * Plays video by URL (spec 4.2): the Node host's virtual screen page, a media board's player.
 * The core drives it and learns everything from reports; calls never throw for bad media (a
 * `failed` report says so).
 */
export interface Player {
  /**
   * Loads `url` and plays it from `startSeconds` (or from `startFraction` of its duration, 0..1,
   * once the duration is known), replacing whatever was loaded. `item` numbers this load: reports
   * about it carry it, so a report about an older item is known as such.
   */
  load(item: number, url: string, start: StartPosition): void;
  /** 0 pauses, 1 plays at normal speed; other rates where the player can. */
  setRate(rate: number): void;
  /** Moves to `seconds` from the item's start. */
  seek(seconds: number): void;
  /** Stops and unloads: the screen shows no video. */
  stop(): void;
  /** Set by the core: the player's state changed (or time passed while playing). */
  onReport: (report: PlayerReport) => void;
}

/** A display's geometry for screen mirroring (spec 2.12). */
export interface ScreenGeometry {
  readonly width: number;
  readonly height: number;
  /** Seconds per refresh (1/60 for 60 Hz). */
  readonly refreshRate: number;
  readonly overscanned: boolean;
}

/** H.264 decoder configuration from avcC (spec 2.14, ISO/IEC 14496-15). */
export interface VideoDecoderConfig {
  /** RFC 6381 codec string, e.g. `avc1.64001f`. */
  readonly codec: string;
  /** The avcC record as received. */
  readonly avcC: Uint8Array;
  /** Sequence and picture parameter sets as Annex-B (start codes), for decoders that take them in-band. */
  readonly parameterSets: Uint8Array;
}

/**
 * Decodes and shows H.264 (screen mirroring): WebCodecs in the Node host's screen page,
 * libavcodec on a media board. Access units are Annex-B (start codes), parameter sets in-band
 * before each key frame.
 */
export interface VideoDecoder {
  readonly geometry: ScreenGeometry;
  /** Codec data changed (stream start, orientation, screen on or off): reconfigure. */
  configure(config: VideoDecoderConfig): void;
  /** One access unit, to be shown at `presentationTime` (the host clock's monotonic ms). */
  decode(accessUnit: Uint8Array, presentationTime: number, keyFrame: boolean): void;
  /** The stream ended: drop what is queued, clear the picture. */
  reset(): void;
}

/** A bound UDP socket (NTP for mirroring, spec 4.5). */
export interface UdpSocket {
  readonly localPort: number;
  send(bytes: Uint8Array, address: string, port: number): void;
  close(): void;
  /** Set by the core: a datagram arrived. */
  onPacket: (bytes: Uint8Array, address: string, port: number) => void;
}

/** Binds a UDP socket on `port` (0: any free port); throws when it cannot. */
export type UdpBinder = (port: number) => UdpSocket;

/**
 * PCM as a sink plays it: interleaved signed 16-bit samples at `sampleRate`, `channels` per
 * frame (spec 2.2's audio format is 44100 Hz, 16 bit, 2 channels; a stream of another rate or
 * channel count is configured as it is, and a sink that cannot play it says so).
 */
export interface AudioFormat {
  readonly sampleRate: number;
  readonly channels: number;
}

/**
 * Where realtime audio comes out (DESIGN 4): the system's sound or a WAV file on the Node host,
 * ECMA-419 `embedded:io/audio/out` on Moddable (I2S on an ESP32, ALSA in the simulator).
 *
 * The core hands it one contiguous run of frames per stream: gaps are already filled with
 * silence and clock drift already corrected (a frame dropped or repeated), so what a sink plays
 * back to back is exactly what was meant to be heard. Each write says when its first frame should
 * be heard (the host clock's monotonic ms), so a sink that runs on its own clock can tell how far
 * it is from the sender's; a file sink ignores it.
 */
export interface AudioSink {
  /** How long from write() until the first frame written is heard (its buffer), in ms. */
  readonly latencyMs: number;
  /**
   * A stream begins (or changes format): frames written from now are of `format`. Returns why
   * the sink cannot play it (a rate its hardware lacks), or undefined when it can.
   */
  configure(format: AudioFormat): string | undefined;
  /** Interleaved frames (`pcm.length` is frames x channels), heard from `presentationTime` on. */
  write(pcm: Int16Array, presentationTime: number): void;
  /** The sender's volume, dB: -144 is muted, -30 to 0 otherwise (spec 2.2). */
  setVolume(db: number): void;
  /** Drops what is written and not yet heard (the sender flushed, paused or seeked). */
  flush(): void;
  /** The stream ended: what is queued plays out, then the sink is idle until configure(). */
  end(): void;
}
