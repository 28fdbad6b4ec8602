// The transitions the virtual screen draws, by the names senders use (spec 4.1
// X-Vendor-Transition, spec 2.7 settings.theme): each name maps to one CSS animation in
// screen.css. A name the screen does not know is drawn as a dissolve (cross-fade), as a frame
// that cannot draw a theme does.

/** Every animation screen.css has, by its class suffix (`t-<name>`). */
export const SCREEN_TRANSITIONS = [
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

export type ScreenTransition = (typeof SCREEN_TRANSITIONS)[number];

/** Names as senders write them, without spaces, dashes or letter case, to the animation. */
const BY_NAME: Readonly<Record<string, ScreenTransition>> = {
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
const RANDOM_POOL = SCREEN_TRANSITIONS.filter((name) => name !== 'none');

/**
 * The animation for a transition name. No name: shown at once (spec 4.1: "with a transition
 * header it is shown with that transition"). `Random`: any animation. Unknown: dissolve.
 */
export function screenTransition(name: string | undefined, random: () => number = Math.random): ScreenTransition {
  if (name === undefined || name.trim() === '') return 'none';
  const wanted = name.replace(/[\s_-]+/g, '').toLowerCase();
  if (wanted === 'random') return RANDOM_POOL[Math.floor(random() * RANDOM_POOL.length) % RANDOM_POOL.length];
  return BY_NAME[wanted] ?? 'dissolve';
}
