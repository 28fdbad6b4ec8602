// The receiver's activity (spec 2.1) and the TXT fields that follow it: gid, igl, gcgl, pgid, pgcgl, flag 17.

import { DiscoveryError } from './error';

/** The receiver activities of spec 2.1's state-dependent table. */
export type Activity =
  | 'idle'
  | 'playingLocalMedia'
  | 'receivingAudio'
  | 'receivingVideo'
  | 'receivingScreenMirroring';

/** One row of spec 2.1's table of state-dependent record fields. */
export interface ActivityRow {
  readonly activity: Activity;
  /** The activity in the spec's words. */
  readonly description: string;
  /** TXT igl: is group leader. */
  readonly igl: boolean;
  /** TXT gcgl: group contains (discoverable) group leader. */
  readonly gcgl: boolean;
  /** TXT pgid present and equal to gid (true), or absent (false). */
  readonly pgid: boolean;
  /** TXT pgcgl: its value, or null when absent. */
  readonly pgcgl: boolean | null;
  /** Status flag bit 17, ReceiverSessionIsActive (spec 2.4). */
  readonly receiverSessionIsActive: boolean;
}

/** spec 2.1, row by row. */
export const ACTIVITY_TABLE: readonly ActivityRow[] = [
  {
    activity: 'idle',
    description: 'idle',
    igl: true,
    gcgl: true,
    pgid: false,
    pgcgl: null,
    receiverSessionIsActive: false,
  },
  {
    activity: 'playingLocalMedia',
    description: 'playing local media',
    igl: true,
    gcgl: true,
    pgid: false,
    pgcgl: null,
    receiverSessionIsActive: false,
  },
  {
    activity: 'receivingAudio',
    description: 'receiving audio',
    igl: false,
    gcgl: false,
    pgid: true,
    pgcgl: false,
    receiverSessionIsActive: true,
  },
  {
    activity: 'receivingVideo',
    description: 'receiving video',
    igl: false,
    gcgl: false,
    pgid: true,
    pgcgl: false,
    receiverSessionIsActive: true,
  },
  {
    activity: 'receivingScreenMirroring',
    description: 'receiving screen mirroring',
    igl: true,
    gcgl: true,
    pgid: false,
    pgcgl: null,
    receiverSessionIsActive: true,
  },
];

/** The row of one activity. */
export function activityRow(activity: Activity): ActivityRow {
  for (const row of ACTIVITY_TABLE) if (row.activity === activity) return row;
  // Unreachable for typed callers; a clear message for untyped ones.
  throw new DiscoveryError(`activity: unknown activity ${JSON.stringify(activity)}`);
}

/** What the receiver is doing and the group UUID it advertises for it. */
export interface ActivityState {
  readonly activity: Activity;
  /** TXT gid (spec 2.1): a UUID string. */
  readonly gid: string;
}

/** The state-dependent TXT fields of spec 2.1, as values; src/discovery/txt.ts writes them. */
export interface ActivityFields {
  readonly gid: string;
  readonly igl: boolean;
  readonly gcgl: boolean;
  /** Present only while the activity's row says so; then equal to gid. */
  readonly pgid?: string;
  /** Present exactly when pgid is. */
  readonly pgcgl?: boolean;
  /** Status flag bit 17 (ReceiverSessionIsActive) for this activity. */
  readonly receiverSessionIsActive: boolean;
}

/**
 * Moves to `next`. spec 2.1: "The gid value differs between activities", so a change of
 * activity takes a fresh UUID from `randomUuid` (the core has no randomness of its own: the
 * host's random port feeds it, e.g. `() => uuidFromBytes(random(16))`). Staying in the same
 * activity keeps the gid, so repeated calls do not churn the advertisement.
 */
export function changeActivity(state: ActivityState, next: Activity, randomUuid: () => string): ActivityState {
  if (next === state.activity) return state;
  let gid = randomUuid();
  // A source that repeats itself would break "differs"; one more draw settles any accident.
  if (gid === state.gid) gid = randomUuid();
  return { activity: next, gid };
}

/** The TXT fields of spec 2.1's table for the current state. */
export function activityFields(state: ActivityState): ActivityFields {
  const row = activityRow(state.activity);
  const fields: ActivityFields = {
    gid: state.gid,
    igl: row.igl,
    gcgl: row.gcgl,
    receiverSessionIsActive: row.receiverSessionIsActive,
  };
  if (!row.pgid) return fields;
  return { ...fields, pgid: state.gid, pgcgl: row.pgcgl ?? false };
}
