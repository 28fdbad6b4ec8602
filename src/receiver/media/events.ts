// Events to the sender (spec 6): POST /event on the session's reverse connection, one table of
// categories, their content types and keys, no repeated consecutive state, failures only logged.

import { EVENT_PURPOSE, HEADER } from '../../http';
import type { Dialect, MakerMime } from '../../dialect';
import type { Logger } from '../../platform';
import { encodeXmlPlistBytes } from '../../plist/xml';
import type { PlistDict } from '../../plist/value';
import { ReverseError, type ReverseRegistry } from '../connection/reverse';

/** spec 6: each event category, the content type its body has, and the states it reports. */
const EVENT_CATEGORIES = {
  photo: { mime: 'plistXml', states: ['stopped'] },
  slideshow: { mime: 'plistXml', states: ['loading', 'playing', 'stopped'] },
  video: { mime: 'plistEvent', states: ['loading', 'playing', 'paused', 'stopped'] },
} as const satisfies Record<string, { mime: MakerMime; states: readonly string[] }>;

type EventCategory = keyof typeof EVENT_CATEGORIES;
type EventState<C extends EventCategory> = (typeof EVENT_CATEGORIES)[C]['states'][number];

interface EventExtras {
  /** spec 6 slideshow: the id of the last asset shown (info.id of its reply, spec 2.8). */
  lastAssetID?: number;
}

/** What the event sender needs: where reverse connections are, the dialect's MIME types, a log. */
interface EventContext {
  readonly log: Logger;
  readonly mime: Dialect['mime'];
  readonly reverse: ReverseRegistry;
  /** Sessions remembered at most (limits.maxEventSessions); the oldest is forgotten first. */
  readonly maxSessions: number;
}

/** Told whether the sender answered an event 2xx (false: not sent, refused or failed). */
type EventDelivered = (delivered: boolean) => void;

/**
 * Sends events for the receiver. spec 6 gives `sessionID` as an integer while senders name
 * their session with a UUID (X-Vendor-Session-ID): real receivers number sessions themselves,
 * and so does this, from 1 in the order senders first appear.
 */
export class EventSender {
  /** Per sender session (key '' for none): its number, and the last state sent per category. */
  private readonly sessions = new Map<string, { readonly number: number; readonly lastStates: Map<EventCategory, string> }>();
  /**
   * Per session with requests being handled now: how many, and the events waiting for their
   * answers. A record goes when its count is back at 0: senders name a new session for each
   * photo they send (vendorplay-send, and real senders per app launch), so records kept for reuse
   * piled up, one per session, on a board that must not grow.
   */
  private readonly holds = new Map<string, { count: number; readonly waiting: (() => void)[] }>();
  private nextNumber = 1;

  constructor(private readonly context: EventContext) {}

  /** The integer session number of a sender's session. */
  sessionNumber(sessionId: string): number {
    return this.sessionOf(sessionId).number;
  }

  /**
   * Sends `state` of `category` to the session's sender, unless it is the state last sent for
   * that category (no duplicate consecutive states). A failed delivery is logged and the
   * session goes on; `delivered`, when given, is told the outcome.
   *
   * A sender that names no session (clients written for early receivers, such as npm
   * airplay-protocol, send no X-Apple-Session-ID on any connection) is one anonymous session,
   * keyed '': its events go to the reverse connection that came without a session id.
   */
  send<C extends EventCategory>(sessionId: string | undefined, category: C, state: EventState<C>, extras: EventExtras = {}, delivered?: EventDelivered): void {
    const key = sessionId ?? '';
    // A session with no record and no reverse connection to hear it is given no record: nothing
    // reaches it, and senders name a new session per photo (vendorplay-send does), so records of
    // sessions never told anything piled up to limits.maxEventSessions. Numbered once it is told.
    if (!this.sessions.has(key) && !this.connectionFor(sessionId)) {
      this.notSent(sessionId, `${category} ${state}`, delivered);
      return;
    }
    const session = this.sessionOf(key);
    if (session.lastStates.get(category) === state) {
      delivered?.(false);
      return;
    }
    session.lastStates.set(category, state);
    // Keys in the order of spec 6's table (alphabetical, as real receivers write them).
    const body: PlistDict = { category };
    if (category === 'slideshow') body.lastAssetID = extras.lastAssetID ?? 0;
    body.sessionID = session.number;
    body.state = state;
    const deliver = () => this.deliver(sessionId, `${category} ${state}`, this.context.mime[EVENT_CATEGORIES[category].mime], encodeXmlPlistBytes(body), delivered);
    const hold = this.holds.get(key);
    if (hold && hold.count > 0) hold.waiting.push(deliver);
    else deliver();
  }

  /**
   * A request of `sessionId` is being handled: events for that session wait until its answer has
   * left (the returned release, called by the connection then). Real receivers answer first, and
   * senders rely on it: npm airplay-protocol tears its connections down on a `stopped` event,
   * the POST /stop that caused it still waiting for its 200.
   */
  hold(sessionId: string | undefined): () => void {
    const key = sessionId ?? '';
    let hold = this.holds.get(key);
    if (!hold) {
      hold = { count: 0, waiting: [] };
      this.holds.set(key, hold);
    }
    hold.count++;
    const current = hold;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--current.count > 0) return;
      // Forgotten before delivering: an event that makes its session hold again starts a new record.
      if (this.holds.get(key) === current) this.holds.delete(key);
      for (const deliver of current.waiting.splice(0)) deliver();
    };
  }

  /** Sessions with a request being answered now (their events wait); tests read it. */
  get sessionsHeld(): number {
    return this.holds.size;
  }

  /** Forgets a session's last states (undefined: the anonymous one, as in send), so a new session of the same sender reports afresh. */
  reset(sessionId: string | undefined, category?: EventCategory): void {
    const session = this.sessions.get(sessionId ?? '');
    if (!session) return;
    if (category) session.lastStates.delete(category);
    else session.lastStates.clear();
  }

  private sessionOf(key: string) {
    let session = this.sessions.get(key);
    if (session) return session;
    if (this.sessions.size >= this.context.maxSessions) {
      // Bounded memory: the session seen first is forgotten (Map keeps insertion order).
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    session = { number: this.nextNumber++, lastStates: new Map() };
    this.sessions.set(key, session);
    return session;
  }

  private deliver(sessionId: string | undefined, what: string, mime: string, body: Uint8Array, delivered: EventDelivered | undefined): void {
    const { log } = this.context;
    const connection = this.connectionFor(sessionId);
    if (!connection) {
      this.notSent(sessionId, what, delivered);
      return;
    }
    connection.request({ method: 'POST', target: '/event', headers: { [HEADER.contentType]: mime }, body }, (result) => {
      if (result instanceof ReverseError) {
        log('warn', `event ${what} to ${connection.peer} failed: ${result.message}`);
        delivered?.(false);
      } else if (result.head.status < 200 || result.head.status > 299) {
        log('warn', `event ${what} to ${connection.peer}: sender answered ${result.head.status}`);
        delivered?.(false);
      } else {
        delivered?.(true);
      }
    });
  }

  private notSent(sessionId: string | undefined, what: string, delivered: EventDelivered | undefined): void {
    this.context.log('debug', `event ${what} for session ${sessionId ?? '(none)'} not sent: no reverse connection for events`);
    delivered?.(false);
  }

  /** Sessions whose numbers and last states are remembered (at most maxSessions); tests read it. */
  get sessionsRemembered(): number {
    return this.sessions.size;
  }

  /** The reverse connection for events: purpose `event`, else one with no purpose. */
  private connectionFor(sessionId: string | undefined) {
    const { reverse } = this.context;
    return reverse.find(sessionId, EVENT_PURPOSE)[0] ?? reverse.find(sessionId).find((connection) => connection.purpose === undefined);
  }
}
