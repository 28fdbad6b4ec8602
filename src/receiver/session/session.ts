// One sender's session (RTSP SETUP with a binary plist, as current senders open one before they
// send media): what the sender said of itself, its connection, its event channel and its clock.
// It lives as long as its connection and its requests: it ends on TEARDOWN, when the connection
// closes, when the sender goes quiet (limits.sessionTimeoutMs), when another sender's session
// needs its place (limits.maxSessions), or when the receiver stops; each end is one log line,
// and ends what the session holds (the video a POST /play on its connection started).

import type { ConnectionState } from '../../connection-state';
import type { EventChannel } from './event-channel';
import type { SenderFacts } from './session-setup';
import type { SessionTiming } from './session-timing';

/** spec 2.2's volume range (dB): -144 is muted, 0 the loudest; RTSP `volume:` parameters use it. */
export const VOLUME_DB = { muted: -144, min: -30, max: 0 } as const;

/** A stream a session holds: it ends with the session. */
export interface SessionStream {
  end(reason: string): void;
}

export class SenderSession {
  /** RECORD came: the sender is ready to send media. */
  recording = false;
  /** The volume the sender set (SET_PARAMETER `volume:`, dB), or the loudest before it sets one. */
  volumeDb: number = VOLUME_DB.max;
  /** The sender's `progress:` (RTP times of start, now and end), once it sent one. */
  progress: readonly [number, number, number] | undefined;
  eventChannel: EventChannel | undefined;
  timing: SessionTiming | undefined;
  /** The audio stream the session plays (a classic ANNOUNCE and SETUP, or a type 96 stream). */
  audio: SessionStream | undefined;
  private endedBecause: string | undefined;
  /** Releases the session's hold on its connection (set by the owner). */
  releaseConnection: () => void = () => {};

  constructor(
    /** Numbers sessions in log lines (1, 2, ...). */
    readonly number: number,
    /** `host:port` of the sender's control connection. */
    readonly peer: string,
    readonly senderAddress: string,
    readonly sender: SenderFacts,
    /** The control connection's state (the sender's connection that carried SETUP). */
    readonly connection: ConnectionState,
    readonly openedAt: number,
  ) {}

  get ended(): boolean {
    return this.endedBecause !== undefined;
  }

  /** When a packet of the session's stream last came (a sender streaming is there, asking or not). */
  lastStreamAt = 0;

  /** When the sender was last heard: a request on the session's connection, or its stream. */
  get lastHeard(): number {
    return Math.max(this.openedAt, this.connection.lastRequestAt, this.lastStreamAt);
  }

  /** `session 3 (pyatv, iPhone14,3)`, for log lines. */
  get label(): string {
    const about = [this.sender.name, this.sender.model].filter((part) => part !== undefined);
    return `session ${this.number}${about.length > 0 ? ` (${about.join(', ')})` : ''}`;
  }

  /**
   * Ends the session once: its event channel and clock close, and what it holds on its
   * connection is told (`ending` finishes "the connection ..."). Returns false when it had ended.
   */
  end(reason: string, ending: string): boolean {
    if (this.endedBecause !== undefined) return false;
    this.endedBecause = reason;
    this.releaseConnection();
    this.audio?.end(`its session ended (${reason})`);
    this.audio = undefined;
    this.eventChannel?.close(`its session ended (${reason})`);
    this.timing?.close();
    this.connection.endHolds(ending);
    return true;
  }
}
