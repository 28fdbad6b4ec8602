// The multicast DNS responder's limits and timings in one place: packet sizes, counts read, queue
// lengths, how often a record may go out, and the RFC 6762 delays of probing and announcing.

/** Bounds on what is read, held and sent (DESIGN 2.4: every buffer and queue has a limit). */
export const MDNS_LIMITS = {
  /**
   * The largest message sent: RFC 6762 17 allows 9000 bytes but asks that a message fit the
   * interface's MTU; 1440 fits an Ethernet or Wi-Fi frame with IPv6 and UDP headers. Records
   * that do not fit one message go out in the next.
   */
  packetBytesMax: 1440,
  /** The largest message read (RFC 6762 17); a longer datagram is refused unread. */
  receiveBytesMax: 9000,
  /** RFC 1035 4.2.1: a legacy resolver takes 512 bytes unless its EDNS0 OPT record says more. */
  legacyBytes: 512,
  /** ...or, when a TXT record would be left out, an MTU's payload, as Apple's mDNSResponder answers. */
  legacyBytesForTxt: 1440,
  /** Questions plus records read from one message; more is refused as malformed. */
  entriesPerMessageMax: 256,
  /**
   * Questions of one query answered; later ones are ignored (the querier asks again). Real
   * queries carry a handful; this bounds what one crafted datagram costs a board.
   */
  questionsAnsweredMax: 64,
  /** RFC 1035 3.1: a name is at most 255 bytes on the wire. */
  nameBytesMax: 255,
  /** Datagrams waiting for the host to send them; past this the oldest waiting answer is dropped. */
  transmitQueueMax: 16,
  /** Events waiting for the owner (log lines); past this the oldest is dropped. */
  eventQueueMax: 32,
  /** RFC 6762 6: a record is multicast at most once a second... */
  multicastIntervalMs: 1000,
  /** ...except in defence of a name being probed by another host, 250 ms (RFC 6762 6). */
  defenceIntervalMs: 250,
  /** RFC 6762 6.7: legacy resolvers take no part in cache coherency, so TTLs of at most 10 s. */
  legacyTtlMax: 10,
  /** RFC 6762 8.1: after 15 conflicts within 10 s, wait 5 s before probing again. */
  conflictsBeforeBackoff: 15,
  conflictWindowMs: 10_000,
  conflictBackoffMs: 5000,
  /**
   * A record multicast and then replaced or withdrawn (the TXT changes with every activity) is
   * remembered this long after it last went out, and at most this many such records, so that
   * its echo (multicast loopback) is not taken for another host's data. Echoes come back within
   * milliseconds; a board must not keep every TXT version it ever sent (about 400 bytes each).
   */
  retiredRecordMs: 10_000,
  retiredRecordsMax: 8,
  /** Renames tried for one name before giving up on it (`Name (2)` ... `Name (100)`). */
  renamesMax: 100,
} as const;

/** RFC 6762 timings (8.1 probing, 8.3 announcing, 6 response delays), in milliseconds. */
export const MDNS_TIMING = {
  /** 8.1: a random delay of 0 to 250 ms before the first probe. */
  probeStartMaxMs: 250,
  /** 8.1: three probes, 250 ms apart; no conflict 250 ms after the last and the name is ours. */
  probeIntervalMs: 250,
  probeCount: 3,
  /** 8.2: losing a simultaneous probe tie-break, wait one second and probe again. */
  probeDeferMs: 1000,
  /** 8.3: at least two announcements, one second apart. */
  announceCount: 2,
  announceIntervalMs: 1000,
  /** 6: an answer holding shared records waits 20 to 120 ms (so answers from many hosts spread). */
  sharedAnswerMinMs: 20,
  sharedAnswerMaxMs: 120,
  /** 6, 7.2: a query with TC set is followed by more known answers; wait 400 to 500 ms. */
  truncatedQueryMinMs: 400,
  truncatedQueryMaxMs: 500,
} as const;

/** RFC 6762 10: records tied to a host name (SRV, A, AAAA) live 120 s, the others 75 minutes. */
export const MDNS_TTL = {
  host: 120,
  shared: 4500,
} as const;

/** RFC 6762 3, 5: the mDNS port and groups. */
export const MDNS_GROUP = {
  port: 5353,
  ipv4: '224.0.0.251',
  ipv6: 'ff02::fb',
} as const;
