// A session's event channel: the TCP connection a sender opens to the eventPort of its SETUP
// answer, right after it. On a paired session it is encrypted like the control channel, with its
// own keys (createEventChannel: Events-Salt). The receiver would send the sender requests on it
// (RTSP, the way the reverse connection carries events in spec 6); it has none to send today, so
// the channel stays open and quiet for the session's life, and what the sender writes on it
// (answers to requests never sent) is counted and dropped, up to a limit. Sans-I/O like the
// receiver's connections: a ConnectionDriver moves its bytes.

import { describeError } from '../../errors';
import type { Logger } from '../../platform';
import type { ConnectionEvent, SansIoConnection } from '../connection/connection-driver';
import type { SecureChannel } from '../../http';

interface EventChannelContext {
  readonly log: Logger;
  /** Bytes a sender may write on the channel over its life before it is closed. */
  readonly maxInputBytes: number;
  /** Told once when the channel has closed, for whatever reason. */
  onClosed(channel: EventChannel, reason: string): void;
}

export class EventChannel implements SansIoConnection {
  onWake: () => void = () => {};
  private readonly events: ConnectionEvent[] = [];
  private closed = false;
  /** Bytes the sender has written (after decryption), dropped. */
  bytesIgnored = 0;

  constructor(
    /** `host:port` of the sender's end, for log lines. */
    readonly peer: string,
    private readonly channel: SecureChannel | undefined,
    private readonly context: EventChannelContext,
  ) {}

  get wantsRead(): boolean {
    return !this.closed;
  }

  get open(): boolean {
    return !this.closed;
  }

  receive(bytes: Uint8Array, _now: number): void {
    if (this.closed || bytes.length === 0) return;
    let plaintext = bytes.length;
    if (this.channel) {
      try {
        plaintext = this.channel.open(bytes).reduce((sum, part) => sum + part.length, 0);
      } catch (error) {
        this.close(`its encryption failed (${describeError(error)})`, 'warn');
        return;
      }
    }
    if (plaintext === 0) return;
    if (this.bytesIgnored === 0) this.context.log('debug', `${this.peer} event channel: the sender wrote ${plaintext} bytes; nothing was asked of it, so they are dropped`);
    this.bytesIgnored += plaintext;
    if (this.bytesIgnored > this.context.maxInputBytes) {
      this.close(`the sender wrote ${this.bytesIgnored} bytes on it unasked (limits.maxEventChannelInputBytes ${this.context.maxInputBytes})`, 'warn');
    }
  }

  transportClosed(error: string | undefined, _now: number): void {
    if (this.closed) return;
    this.closed = true;
    this.channel?.dispose();
    const reason = error ? `it failed (${error})` : 'the sender closed it';
    this.context.log('info', `${this.peer} event channel closed: ${reason}`);
    this.context.onClosed(this, reason);
  }

  pollTransmit(): Uint8Array | undefined {
    return undefined;
  }

  pollTimeout(): number | undefined {
    return undefined;
  }

  handleTimeout(_now: number): void {}

  pollEvent(): ConnectionEvent | undefined {
    return this.events.shift();
  }

  /** Closes the channel (the session ended, or the sender misbehaved on it). */
  close(reason: string, level: 'info' | 'warn' = 'info'): void {
    if (this.closed) return;
    this.closed = true;
    this.channel?.dispose();
    this.context.log(level, `${this.peer} event channel closed: ${reason}`);
    this.events.push({ type: 'close', reason });
    this.context.onClosed(this, reason);
    this.onWake();
  }
}
