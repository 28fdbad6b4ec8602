// The transitions a screen draws, by the names senders use (spec 4.1 X-Vendor-Transition, spec
// 2.7 settings.theme): one table from every spelling senders use to one canonical transition,
// which is what the Display port is given. A name no screen knows is drawn as a dissolve
// (cross-fade), as a frame that cannot draw a theme does. (The virtual screen has one CSS
// animation per canonical name; a board draws every one at once.)

/** The canonical transitions. */
export const TRANSITIONS = [
  'none',
  'dissolve',
  'classic',
  'push',
  'move-in',
  'cube',
  'flip',
  'ripple',
  'wipe-across',
  'wipe-down',
  'origami',
  'ken-burns',
] as const;

export type Transition = (typeof TRANSITIONS)[number];

/** Names as senders write them, without spaces, dashes or letter case, to the animation. */
const BY_NAME: Readonly<Record<string, Transition>> = {
  none: 'none',
  dissolve: 'dissolve',
  crossfade: 'dissolve',
  fade: 'dissolve',
  classic: 'classic',
  push: 'push',
  slide: 'push',
  slidingpanels: 'push',
  movein: 'move-in',
  cube: 'cube',
  flip: 'flip',
  flipflop: 'flip',
  ripple: 'ripple',
  wipeacross: 'wipe-across',
  wipe: 'wipe-across',
  wipedown: 'wipe-down',
  origami: 'origami',
  kenburns: 'ken-burns',
  reflections: 'dissolve',
};

/** What `Random` picks from: every animation but none. */
const RANDOM_POOL = TRANSITIONS.filter((name) => name !== 'none');

/**
 * The transition for a name as a sender wrote it. No name: shown at once (spec 4.1: "with a
 * transition header it is shown with that transition"). `Random`: any animation. Unknown: dissolve.
 */
export function transitionOf(name: string | undefined, random: () => number = Math.random): Transition {
  if (name === undefined || name.trim() === '') return 'none';
  const wanted = name.replace(/[\s_-]+/g, '').toLowerCase();
  if (wanted === 'random') return RANDOM_POOL[Math.floor(random() * RANDOM_POOL.length) % RANDOM_POOL.length];
  return BY_NAME[wanted] ?? 'dissolve';
}
