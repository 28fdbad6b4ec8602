// Every limit of the receiver in one object (DESIGN principle 4), with the desktop defaults;
// profiles of boards override some (profiles.ts), `--limit NAME=VALUE` any.

export interface ReceiverLimits {
  /**
   * Most simultaneous connections on all listeners. A new one past it takes the place of the
   * least useful connection of the address holding the most (src/receiver/connection/admission.ts);
   * with none that may make room it is answered 503 with Retry-After and closed.
   */
  maxConnections: number;
  /** Most simultaneous connections from one address (the same rule within that address). */
  maxConnectionsPerAddress: number;
  /**
   * A connection idle this long between requests is closed (not one a video lives on: the
   * connection that carried its POST /play stays open while the video is loaded).
   */
  idleTimeoutMs: number;
  /** A request head must arrive whole within this time of its first byte (slow-loris guard). */
  headerTimeoutMs: number;
  /**
   * A body must keep up at least this rate once bodyGraceMs has passed: at time t after its head,
   * (t - bodyGraceMs) x rate bytes must have arrived, or the answer is 408 and a close.
   */
  minBodyBytesPerSecond: number;
  /** How long a body may take before the minimum rate applies. */
  bodyGraceMs: number;
  /**
   * Most pipelined requests of one connection answered in one turn before the others get theirs
   * (fairness: a connection with a thousand costly requests queued does not stall the rest).
   */
  maxRequestsPerTurn: number;
  /** Largest request head (request line and headers) in bytes. */
  maxHeadBytes: number;
  /** Most header lines in one request. */
  maxHeaderCount: number;
  /** Largest request body, for routes that do not set their own limit. */
  maxBodyBytes: number;
  /**
   * How long a sender has to answer a request on a reverse connection before minReverseBytesPerSecond
   * applies: its response must be whole by then, or keep up that rate from then on.
   */
  reverseRequestTimeoutMs: number;
  /**
   * A reverse response (a slideshow picture) must keep up at least this rate once
   * reverseRequestTimeoutMs has passed: at time t after the request, (t - reverseRequestTimeoutMs)
   * x rate bytes must have come, or the connection is closed. A deadline for the whole response
   * refused every picture a slow link could not carry in that time, however steadily it came.
   */
  minReverseBytesPerSecond: number;
  /** Largest response body read on a reverse connection (a slideshow picture reply). */
  maxReverseBodyBytes: number;
  /**
   * Most reverse connections open at once, all senders together. Past it a new one takes the
   * place of a silent one of an address that holds more than the newcomer's, or is refused (503).
   */
  maxReverseConnections: number;
  /**
   * Most reverse connections of one address: a sender's event connection and spec 8's three
   * slideshow fetches. Past it the address's own silent one, quiet longest, makes room.
   */
  maxReverseConnectionsPerAddress: number;
  /**
   * A reverse connection that carried nothing for this long is closed unless its address has
   * another connection open (its sender is still there and may have events to hear).
   */
  reverseIdleTimeoutMs: number;
  /**
   * Most slideshow pictures fetched or being fetched ahead of the one shown (each up to
   * maxReverseBodyBytes). spec 8's three parallel fetches need 3.
   */
  slideshowLookAhead: number;
  /**
   * Tries a slideshow gives a picture that does not arrive (its fetch fails: no progress, a
   * lost connection, a reply over maxReverseBodyBytes); fetches that fail together are one try.
   * Past it the picture is given up with a log line and the show stops: a sender that serves the
   * same picture again to each new request would otherwise be asked for it forever.
   */
  slideshowPictureTries: number;
  /**
   * A pair-setup attempt holds the receiver (other senders are answered Busy) for at most this
   * long from its M1, or from its last step that made progress (a good M3); a repeated M1 is
   * not progress. Also how long a PIN stays shown.
   */
  pairingTimeoutMs: number;
  /**
   * Most costly pairing steps (pair-setup M1 makes an SRP key, pair-verify M1 an X25519 one) one
   * address may start per second, all its connections together; past it the step is answered
   * with a TLV Backoff error and RetryDelay, without doing the work (HAP 5.6: TLV error codes).
   */
  pairingStepsPerSecondPerAddress: number;
  /** The same for one connection (a single socket pipelining M1s). */
  pairingStepsPerSecondPerConnection: number;
  /**
   * Most costly pairing steps the whole receiver starts per second, all addresses together (its
   * CPU budget for pairing). While more addresses ask than it holds, each gets a fair share (the
   * budget over the addresses asking): a flood from many addresses slows pairing down, and a
   * sender on another address still gets its share (src/pairing/step-limiter.ts).
   */
  pairingStepsPerSecond: number;
  /**
   * Wrong PINs one sender identity or one address may give (within the decay) before each of its
   * pair-setup attempts must wait, 2^(n - this) s, at most a minute (Backoff with RetryDelay).
   */
  pairingFailuresBeforeBackoff: number;
  /** One wrong PIN of a sender identity or address is forgotten per this many milliseconds. */
  pairingFailureDecayMs: number;
  /**
   * Wrong proofs of a fixed PIN or password, all senders and restarts together, after which
   * pairing with it is refused (MaxTries, HAP 5.6.2) until a person resets the count
   * (`vendorplay-receiver pairings reset-tries`, or the reset on the receiver's screen). A random
   * PIN is never locked out: each wrong proof spends it.
   */
  pairingMaxFailures: number;
  /**
   * Most paired senders kept (pair-setup M5 and POST /pair-add, /pairings). Past it a new sender
   * is answered MaxPeers; an admin removes one (POST /pair-remove) or a person runs
   * `vendorplay-receiver pairings remove ID`. At most 255 (the record's count is one byte).
   */
  maxPairings: number;
  /** Largest picture taken by PUT /photo (spec 8 names none); over it: 413. */
  maxPhotoBytes: number;
  /**
   * Largest picture PUT /photo draws as it arrives instead (over it: 413 on its head): on a
   * screen that decodes in pieces (Display.openPhotoStream), a picture that need not be kept
   * (shown at once and not cached: photo.ts) is never held whole, so it may be larger than
   * maxPhotoBytes.
   */
  maxStreamedPhotoBytes: number;
  /**
   * Most bytes of a streamed picture held at once: its header (the JPEG's segments before the
   * scan, Exif included: the decoder needs it whole before it starts; larger: 413), then what the
   * screen's decoder has not consumed yet. Past it the connection stops reading its socket until
   * the decoder has drained some. What a streamed picture counts in pictureBudgetBytes.
   */
  maxStreamedPhotoHeldBytes: number;
  /** Most bytes of pictures the photo cache holds (spec 4.1 cacheOnly); the least recently used leave first. */
  photoCacheBytes: number;
  /** Most pictures the photo cache holds. */
  photoCacheEntries: number;
  /**
   * Most bytes of pictures held at once, all together (src/receiver/media/picture-budget.ts): a
   * PUT /photo from its Content-Length on, the picture shown, the photo cache, slideshow fetches
   * (each counted at maxReverseBodyBytes until its reply is in) and the pictures they brought.
   * The cache gives back its entries first; past it an upload is answered 413 on its head and a
   * slideshow fetch waits. Each board's figure is in boards.ts.
   */
  pictureBudgetBytes: number;
  /**
   * Most bytes of mirrored video a host holds for its display while the display falls behind
   * (the Node host: access units queued to the screen page). Past it the host drops access units
   * until the next key frame, so the picture skips ahead instead of lagging ever more.
   */
  mirrorDisplayQueueBytes: number;
  /**
   * A host that fetches video for its player through a proxy (the Node host's screen page): the
   * largest HLS playlist it rewrites (bigger: the fetch fails, 502), the URLs it keeps per item
   * (a live stream's older segments are forgotten beyond it), the redirects it follows per
   * request, and how long it waits for the media server to answer.
   */
  mediaPlaylistBytes: number;
  mediaItemUrls: number;
  mediaRedirects: number;
  mediaServerTimeoutMs: number;
  /**
   * Most bytes a connection holds unread while its requests wait (a handler answering later, a
   * head being read): the host stops reading the socket there (flow control), and a peer that
   * sends past it anyway is disconnected.
   */
  maxHeldBytes: number;
  /** Most requests waiting to be sent on one reverse connection; more fail at once. */
  maxQueuedReverseRequests: number;
  /**
   * Most bytes of answers a connection holds unsent (its peer does not read them; the host's own
   * socket buffer comes on top): past it no more of its requests are read until they leave.
   */
  maxUnsentAnswerBytes: number;
  /** Answers that have not started leaving for this long (a peer that reads nothing) close the connection. */
  writeTimeoutMs: number;
  /** Most sender sessions whose event numbers and last states are remembered (oldest forgotten first). */
  maxEventSessions: number;
  /**
   * Largest payload of one mirroring stream packet (spec 2.14; spec 8 names none). The reader
   * holds at most one packet: a bigger announced size ends the session before anything is kept.
   */
  maxMirrorPayloadBytes: number;
  /**
   * A mirroring session ends after this many heartbeat intervals (1 s each, spec 8) with no
   * packet at all from its sender (a stalled or vanished sender).
   */
  mirrorMissedHeartbeats: number;
  /** Longest video URL POST /play takes (spec 4.2 Content-Location), in bytes; over it: 400. */
  maxVideoUrlBytes: number;
  /**
   * A video must be taken by a player (it has fetched some of it) within this time of POST /play,
   * and be ready to play within this time of being taken, or the load fails (stopped event,
   * error-log entry, log line): the Node host with no screen page open fails it after this long.
   */
  videoLoadTimeoutMs: number;
  /** Entries kept in each of the playback access and error logs (spec 2.10), oldest dropped first. */
  videoLogEntries: number;
  /** Largest playback rate POST /rate takes, either way (spec 4.2: 0 pauses, 1 plays; others where the player can). */
  maxVideoRate: number;
  /**
   * Most senders' sessions (RTSP SETUP) open at once. A new one past it ends the session heard
   * from least recently (its sender has gone quiet longest).
   */
  maxSessions: number;
  /**
   * A session with no request on its connection (POST /feedback comes every 2 s) for this long
   * is ended, with what it plays (the connection is then idle, and closed as idle connections are).
   */
  sessionTimeoutMs: number;
  /** Bytes a sender may write unasked on a session's event channel before it is closed. */
  maxEventChannelInputBytes: number;
  /**
   * RTSP GET /info replies kept, one per sender connection (each names its sender's address and
   * port): repeated asks on one connection are answered from the kept bytes. Each is about 4 KB.
   */
  infoRepliesKept: number;
  /**
   * How much realtime audio the jitter buffer holds, in ms of the stream: the latency a sender asks
   * for (its audio arrives that far ahead of being heard) must fit, with room for late packets.
   * A stream asking for more is refused at its ANNOUNCE or SETUP, not played early.
   */
  audioBufferMs: number;
}

export const DEFAULT_LIMITS: ReceiverLimits = {
  // A desktop takes hundreds; the profiles of boards set what their RAM allows (profiles.ts).
  maxConnections: 256,
  // A sender uses a handful (control, events, three slideshow fetches, mirroring).
  maxConnectionsPerAddress: 32,
  idleTimeoutMs: 120_000,
  headerTimeoutMs: 10_000,
  minBodyBytesPerSecond: 1024,
  bodyGraceMs: 10_000,
  maxRequestsPerTurn: 4,
  maxHeadBytes: 8 * 1024,
  maxHeaderCount: 64,
  maxBodyBytes: 64 * 1024,
  reverseRequestTimeoutMs: 15_000,
  // 4 KiB/s: a 1 MB picture in about four minutes; slower than that, the link has stalled.
  minReverseBytesPerSecond: 4 * 1024,
  maxReverseBodyBytes: 8 * 1024 * 1024,
  maxReverseConnections: 8,
  // An event connection and spec 8's three parallel slideshow fetches.
  maxReverseConnectionsPerAddress: 4,
  // Longer than idleTimeoutMs: a sender's other connections close first when it goes quiet.
  reverseIdleTimeoutMs: 300_000,
  slideshowLookAhead: 3,
  // A sender restarting or a link dropping for a moment costs one; three in a row do not happen by chance.
  slideshowPictureTries: 3,
  pairingTimeoutMs: 30_000,
  // A desktop makes an SRP key in ~10 ms: 16 a second from one address is a sixth of a core.
  pairingStepsPerSecondPerAddress: 16,
  pairingStepsPerSecondPerConnection: 8,
  // A pair-verify's steps cost about 5 ms of a desktop core, a pair-setup's more: a sixth of a core.
  pairingStepsPerSecond: 32,
  // A person mistyping a few times is not slowed; a guesser is, to about one guess a minute.
  pairingFailuresBeforeBackoff: 5,
  pairingFailureDecayMs: 60_000,
  // HAP 5.6.2: 100 wrong proofs of a fixed code.
  pairingMaxFailures: 100,
  // 1570 bytes of record at most: fits an ESP32 NVS blob (src/pairing/peers.ts).
  maxPairings: 16,
  // A desktop's memory; the profiles of boards set smaller ones (profiles.ts).
  maxPhotoBytes: 8 * 1024 * 1024,
  maxStreamedPhotoBytes: 8 * 1024 * 1024,
  // An Exif segment alone may take 64 KB (its length field is 16 bits), with a thumbnail in it.
  maxStreamedPhotoHeldBytes: 128 * 1024,
  photoCacheBytes: 64 * 1024 * 1024,
  photoCacheEntries: 32,
  // The cache full, the shown picture, and a slideshow's three fetches of maxReverseBodyBytes.
  pictureBudgetBytes: 64 * 1024 * 1024 + 4 * 8 * 1024 * 1024,
  // About two seconds of a 1080p mirroring stream (8 to 16 Mbit/s) with a key frame or two.
  mirrorDisplayQueueBytes: 4 * 1024 * 1024,
  // Real playlists are a few KiB; a live stream names a few segments a minute.
  mediaPlaylistBytes: 2 * 1024 * 1024,
  mediaItemUrls: 20_000,
  mediaRedirects: 5,
  mediaServerTimeoutMs: 20_000,
  maxHeldBytes: 64 * 1024,
  maxQueuedReverseRequests: 16,
  // Dozens of answers (a /server-info is 0.5 to 3 KB); a sender reads each before it asks much more.
  maxUnsentAnswerBytes: 64 * 1024,
  writeTimeoutMs: 30_000,
  maxEventSessions: 64,
  // A 1080p key frame at a high bit rate is a few hundred KB; 4 MB leaves room for 4K.
  maxMirrorPayloadBytes: 4 * 1024 * 1024,
  mirrorMissedHeartbeats: 5,
  // Signed CDN URLs run to a few KB; a whole header's worth is ample.
  maxVideoUrlBytes: 8 * 1024,
  // A progressive MP4 or an HLS playlist and its first segment, over a slow network.
  videoLoadTimeoutMs: 30_000,
  videoLogEntries: 16,
  // Players scan at 2x to 8x (trick play); beyond that no player decodes in time.
  maxVideoRate: 8,
  // One per sender; a household has a few. Each holds an event channel (a socket).
  maxSessions: 8,
  // Senders send POST /feedback every 2 s: 15 missed ones.
  sessionTimeoutMs: 30_000,
  maxEventChannelInputBytes: 64 * 1024,
  // About 256 KB on a desktop; boards keep few (profiles.ts).
  infoRepliesKept: 64,
  // iTunes and older senders ask 2 s (88200 frames), pyatv's session streams 0.25 s: 2 s and room.
  audioBufferMs: 3000,
};
