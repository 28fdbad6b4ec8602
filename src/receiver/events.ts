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
  /** Requests of each session (key '' for none) being handled now, and what their answer releases. */
  private readonly holds = new Map<string, { count: number; released: Promise<void>; release: () => void }>();
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
   *
   * A sender that names no session (clients written for early receivers, such as npm
   * airplay-protocol, send no X-Apple-Session-ID on any connection) is one anonymous session,
   * keyed '': its events go to the reverse connection that came without a session id.
   */
  async send<C extends EventCategory>(sessionId: string | undefined, category: C, state: EventState<C>, extras: EventExtras = {}): Promise<boolean> {
    const { log } = this.receiver.ports;
    const key = sessionId ?? '';
    const stateKey = `${key} ${category}`;
    if (this.lastStates.get(stateKey) === state) return false;
    this.lastStates.set(stateKey, state);
    const hold = this.holds.get(key);
    if (hold) await hold.released;
    const connection = this.connectionFor(sessionId);
    if (!connection) {
      log('debug', `event ${category} ${state} for session ${sessionId ?? '(none)'} not sent: no reverse connection for events`);
      return false;
    }
    // Keys in the order of spec 6's table (alphabetical, as real receivers write them).
    const body: PlistDict = { category };
    if (category === 'slideshow') body.lastAssetID = extras.lastAssetID ?? 0;
    body.sessionID = this.sessionNumber(key);
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

  /**
   * A request of `sessionId` is being handled: events for that session wait until it has been
   * answered (the returned release, called once the response is written). Real receivers answer
   * first, and senders rely on it: npm airplay-protocol tears its connections down on a
   * `stopped` event, the POST /stop that caused it still waiting for its 200.
   */
  hold(sessionId: string | undefined): () => void {
    const key = sessionId ?? '';
    let hold = this.holds.get(key);
    if (!hold) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { count: 0, released, release };
      this.holds.set(key, hold);
    }
    hold.count++;
    const current = hold;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--current.count > 0) return;
      this.holds.delete(key);
      current.release();
    };
  }

  /** Forgets a session's last states, so a new session of the same sender reports afresh. */
  reset(sessionId: string, category?: EventCategory): void {
    for (const key of [...this.lastStates.keys()]) {
      if (key === `${sessionId} ${category}` || (!category && key.startsWith(`${sessionId} `))) this.lastStates.delete(key);
    }
  }

  /** The reverse connection for events: purpose `event`, else one with no purpose. */
  private connectionFor(sessionId: string | undefined) {
    const { reverse } = this.receiver;
    return reverse.find(sessionId, EVENT_PURPOSE)[0] ?? reverse.find(sessionId).find((connection) => connection.purpose === undefined);
  }
}
