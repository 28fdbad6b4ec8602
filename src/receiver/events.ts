// Events to the sender (spec 6): POST /event on the session's reverse connection, one table of
// categories, their content types and keys, no repeated consecutive state, failures only logged.

import { HEADER } from '../http';
import type { MakerMime } from '../dialect';
import { encodeXmlPlistBytes } from '../plist/xml';
import type { PlistDict } from '../plist/value';
import type { Receiver } from './receiver';

/** spec 6: each event category, the content type its body has, and the states it reports. */
export const EVENT_CATEGORIES = {
  photo: { mime: 'plistXml', states: ['stopped'] },
  slideshow: { mime: 'plistXml', states: ['loading', 'playing', 'stopped'] },
  video: { mime: 'plistEvent', states: ['loading', 'playing', 'paused', 'stopped'] },
} as const satisfies Record<string, { mime: MakerMime; states: readonly string[] }>;

export type EventCategory = keyof typeof EVENT_CATEGORIES;
export type EventState<C extends EventCategory> = (typeof EVENT_CATEGORIES)[C]['states'][number];

/** X-Vendor-Purpose of the reverse connection that carries events. */
export const EVENT_PURPOSE = 'event';

export interface EventExtras {
  /** spec 6 slideshow: the id of the last asset shown (info.id of its reply, spec 2.8). */
  lastAssetID?: number;
}

/**
 * Sends events for the receiver. spec 6 gives `sessionID` as an integer while senders name
 * their session with a UUID (X-Vendor-Session-ID): real receivers number sessions themselves,
 * and so does this, from 1 in the order senders first appear.
 */
export class EventSender {
  private readonly numbers = new Map<string, number>();
  private readonly lastStates = new Map<string, string>();
  private nextNumber = 1;

  constructor(private readonly receiver: Receiver) {}

  /** The integer session number of a sender's session. */
  sessionNumber(sessionId: string): number {
    let number = this.numbers.get(sessionId);
    if (number === undefined) {
      number = this.nextNumber++;
      this.numbers.set(sessionId, number);
    }
    return number;
  }

  /**
   * Sends `state` of `category` to the session's sender, unless it is the state last sent for
   * that category (no duplicate consecutive states). Resolves true when the sender answered
   * 2xx; never rejects: a failed delivery is logged and the session goes on.
   */
  async send<C extends EventCategory>(sessionId: string | undefined, category: C, state: EventState<C>, extras: EventExtras = {}): Promise<boolean> {
    const { log } = this.receiver.ports;
    if (!sessionId) return false;
    const stateKey = `${sessionId} ${category}`;
    if (this.lastStates.get(stateKey) === state) return false;
    this.lastStates.set(stateKey, state);
    const connection = this.connectionFor(sessionId);
    if (!connection) {
      log('debug', `event ${category} ${state} for session ${sessionId} not sent: no reverse connection for events`);
      return false;
    }
    // Keys in the order of spec 6's table (alphabetical, as real receivers write them).
    const body: PlistDict = { category };
    if (category === 'slideshow') body.lastAssetID = extras.lastAssetID ?? 0;
    body.sessionID = this.sessionNumber(sessionId);
    body.state = state;
    const mime = this.receiver.dialect.mime[EVENT_CATEGORIES[category].mime];
    try {
      const response = await connection.request({
        method: 'POST',
        target: '/event',
        headers: { [HEADER.contentType]: mime },
        body: encodeXmlPlistBytes(body),
      });
      if (response.head.status < 200 || response.head.status > 299) {
        log('warn', `event ${category} ${state} to ${connection.peer}: sender answered ${response.head.status}`);
        return false;
      }
      return true;
    } catch (error) {
      log('warn', `event ${category} ${state} to ${connection.peer} failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /** Forgets a session's last states, so a new session of the same sender reports afresh. */
  reset(sessionId: string, category?: EventCategory): void {
    for (const key of [...this.lastStates.keys()]) {
      if (key === `${sessionId} ${category}` || (!category && key.startsWith(`${sessionId} `))) this.lastStates.delete(key);
    }
  }

  /** The reverse connection for events: purpose `event`, else one with no purpose. */
  private connectionFor(sessionId: string) {
    const { reverse } = this.receiver;
    return reverse.find(sessionId, EVENT_PURPOSE)[0] ?? reverse.find(sessionId).find((connection) => connection.purpose === undefined);
  }
}
