// What the receiver tells its host happened (ReceiverPorts.onEvent): one table of the events, what
// each means and the details it carries, so hosts (the Node host's --on-event hooks) and the
// README read the same names. Not the events senders get over their reverse connections (spec 6,
// media/events.ts): these are for the people who run the receiver.

/** Each event, what it means, and the names of the details it carries beside the common ones. */
export const RECEIVER_EVENTS = {
  'session-started': { means: "a sender's session opened (RTSP SETUP)", details: ['session', 'sender-name', 'model'] },
  'session-ended': { means: "a sender's session ended (TEARDOWN, its connection closed, made room)", details: ['session', 'reason'] },
  'photo-shown': { means: 'a photo is on the screen (PUT /photo)', details: ['session', 'key', 'bytes'] },
  'video-playing': { means: 'the video plays', details: ['session'] },
  'video-paused': { means: 'the video is paused', details: ['session'] },
  'video-stopped': { means: 'the video ended or was stopped', details: ['session'] },
  'mirroring-started': { means: 'screen mirroring began (POST /stream)', details: ['session'] },
  'mirroring-stopped': { means: 'screen mirroring ended', details: ['session'] },
  'audio-started': { means: 'a realtime audio stream was set up', details: ['session', 'format'] },
  'audio-stopped': { means: 'the audio stream ended', details: ['session', 'reason'] },
  paired: { means: 'a sender paired (pair-setup done): it is stored', details: ['identifier'] },
  unpaired: { means: 'a pairing was removed (pair-remove)', details: ['identifier'] },
} as const satisfies Record<string, { readonly means: string; readonly details: readonly string[] }>;

export type ReceiverEventName = keyof typeof RECEIVER_EVENTS;

/** One event, as the receiver hands it to ReceiverPorts.onEvent. */
export interface ReceiverEvent {
  readonly name: ReceiverEventName;
  /** The sender's address, where the event has one. */
  readonly sender?: string;
  /** The sender's device id as it named it (a header, its session's SETUP), where known. */
  readonly deviceId?: string;
  /** Event-specific values, named in RECEIVER_EVENTS[name].details. */
  readonly details: Readonly<Record<string, string>>;
}

/** Where an event comes from, as the feature that raises it knows it. */
export interface EventOrigin {
  /** The sender's session id (X-Vendor-Session-ID), which tells the receiver who the sender is. */
  readonly sessionId?: string;
  readonly address?: string;
  readonly deviceId?: string;
}

/** Raises a receiver event (the receiver fills in what it knows of the sender). */
export type Announce = (name: ReceiverEventName, origin: EventOrigin, details?: Readonly<Record<string, string>>) => void;

/** How many sender sessions the receiver remembers the address and device id of. */
const SENDERS_KEPT = 64;

/**
 * Who the senders are, by their session id: the address and device id their requests gave, so
 * an event raised by a feature that knows only the session names its sender. The oldest is
 * forgotten past SENDERS_KEPT.
 */
export class SenderDirectory {
  private readonly senders = new Map<string, { address: string; deviceId?: string }>();

  note(sessionId: string, address: string, deviceId: string | undefined): void {
    const known = this.senders.get(sessionId);
    if (known && known.address === address && (deviceId === undefined || known.deviceId === deviceId)) return;
    this.senders.delete(sessionId);
    this.senders.set(sessionId, { address, deviceId: deviceId ?? known?.deviceId });
    if (this.senders.size > SENDERS_KEPT) this.senders.delete(this.senders.keys().next().value!);
  }

  /** The event with what the origin and the directory know of its sender. */
  event(name: ReceiverEventName, origin: EventOrigin, details: Readonly<Record<string, string>> = {}): ReceiverEvent {
    const known = origin.sessionId === undefined ? undefined : this.senders.get(origin.sessionId);
    const sender = origin.address ?? known?.address;
    const deviceId = origin.deviceId ?? known?.deviceId;
    const withSession = origin.sessionId !== undefined && details.session === undefined ? { session: origin.sessionId, ...details } : details;
    return { name, ...(sender !== undefined && { sender }), ...(deviceId !== undefined && { deviceId }), details: withSession };
  }
}
