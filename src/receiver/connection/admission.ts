// Admission: which connection makes room when the receiver (limits.maxConnections) or one address
// (limits.maxConnectionsPerAddress) is full. One table says what each kind of connection is worth
// keeping; the README's table "What each kind of connection may hold, and for how long" says it
// for people.
//
// The policy, so that no cheap client can lock a new sender out:
//   - at an address's share, the newcomer takes the place of that address's least useful
//     connection: an address competes only with itself;
//   - with the receiver full, the victim comes from the address holding the most connections
//     (ties: the least useful, then the one quiet longest), so a new address always gets room
//     while any connection that may make room is open;
//   - never one a handler is working for, one something lives on (a playing video's /play
//     connection, a sender's session: ConnectionState.hold), a mirroring stream (it ends itself
//     when its data stops), or a reverse connection with a request out.

/** What a connection is doing, as admission sees it (ReceiverConnection.occupation). */
export type Occupation =
  | 'unread-answers'
  | 'refused-body'
  | 'idle'
  | 'head'
  | 'encrypted-idle'
  | 'silent-reverse'
  | 'body'
  | 'busy';

interface OccupationRow {
  /** Lower makes room first. */
  readonly rank: number;
  /**
   * `any`: for any newcomer; `another-address`: only for a newcomer from another address (an
   * address at its share keeps its own uploads); `never`.
   */
  readonly makesRoom: 'any' | 'another-address' | 'never';
  /** For log lines: "closed (<words>) to make room for ...". */
  readonly words: string;
}

/** Least useful first. */
export const OCCUPATIONS: Readonly<Record<Occupation, OccupationRow>> = {
  'unread-answers': { rank: 0, makesRoom: 'any', words: 'its peer reads none of its answers' },
  'refused-body': { rank: 1, makesRoom: 'any', words: 'skipping the body of a refused request' },
  idle: { rank: 2, makesRoom: 'any', words: 'idle' },
  head: { rank: 3, makesRoom: 'any', words: 'a request head still arriving' },
  'encrypted-idle': { rank: 4, makesRoom: 'any', words: 'idle, encrypted' },
  'silent-reverse': { rank: 5, makesRoom: 'any', words: 'a silent reverse connection' },
  body: { rank: 6, makesRoom: 'another-address', words: 'a request body still arriving' },
  busy: { rank: 7, makesRoom: 'never', words: 'busy' },
};

/** What admission reads of a connection. */
export interface Admissible {
  readonly addresses: { readonly remoteAddress: string };
  readonly occupation: Occupation;
  /** Monotonic ms of the last bytes in or out: the one quiet longest goes first among equals. */
  readonly lastActivity: number;
}

/** Connections open per remote address. */
export function countByAddress(connections: Iterable<Admissible>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const connection of connections) {
    const address = connection.addresses.remoteAddress;
    counts.set(address, (counts.get(address) ?? 0) + 1);
  }
  return counts;
}

/** The limit a newcomer from `address` meets, if any: its address's share first. */
export function crowding(
  counts: ReadonlyMap<string, number>,
  total: number,
  address: string,
  limits: { readonly maxConnections: number; readonly maxConnectionsPerAddress: number },
): 'maxConnectionsPerAddress' | 'maxConnections' | undefined {
  if ((counts.get(address) ?? 0) >= limits.maxConnectionsPerAddress) return 'maxConnectionsPerAddress';
  if (total >= limits.maxConnections) return 'maxConnections';
  return undefined;
}

/**
 * The connection that makes room for a newcomer from `address` at `limit`, or undefined when
 * none may (the newcomer is refused). See the header for the order.
 */
export function chooseVictim<C extends Admissible>(
  connections: Iterable<C>,
  counts: ReadonlyMap<string, number>,
  address: string,
  limit: 'maxConnectionsPerAddress' | 'maxConnections',
): C | undefined {
  const withinAddress = limit === 'maxConnectionsPerAddress';
  let victim: C | undefined;
  let victimHeld = 0;
  let victimRank = 0;
  for (const connection of connections) {
    const own = connection.addresses.remoteAddress === address;
    if (withinAddress && !own) continue;
    const row = OCCUPATIONS[connection.occupation];
    if (row.makesRoom === 'never' || (row.makesRoom === 'another-address' && own)) continue;
    const held = withinAddress ? 0 : (counts.get(connection.addresses.remoteAddress) ?? 0);
    const better =
      !victim ||
      held > victimHeld ||
      (held === victimHeld && (row.rank < victimRank || (row.rank === victimRank && connection.lastActivity < victim.lastActivity)));
    if (better) {
      victim = connection;
      victimHeld = held;
      victimRank = row.rank;
    }
  }
  return victim;
}
