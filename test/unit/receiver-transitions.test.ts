// Transition names (spec 4.1 X-Vendor-Transition, 2.7 settings.theme) resolved in the core to what
// a screen draws: senders' spellings, Random, unknown names.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SLIDESHOW_THEMES } from '../../src/receiver/slideshow/slideshow-themes';
import { TRANSITIONS, transitionOf } from '../../src/receiver/media/transitions';

test('senders spell transitions many ways; each resolves to one canonical transition', () => {
  assert.equal(transitionOf('Dissolve'), 'dissolve');
  assert.equal(transitionOf('cross fade'), 'dissolve');
  assert.equal(transitionOf('Wipe_Across'), 'wipe-across');
  assert.equal(transitionOf('KenBurns'), 'ken-burns');
  assert.equal(transitionOf('Sliding Panels'), 'push');
  assert.equal(transitionOf('MoveIn'), 'move-in');
});

test('no name is shown at once, an unknown one as a dissolve, Random as any drawn transition', () => {
  assert.equal(transitionOf(undefined), 'none');
  assert.equal(transitionOf('  '), 'none');
  assert.equal(transitionOf('Confetti'), 'dissolve');
  assert.equal(transitionOf('Random', () => 0), TRANSITIONS[1]);
  assert.equal(transitionOf('random', () => 0.999), TRANSITIONS[TRANSITIONS.length - 1]);
});

test('every slideshow theme is a transition the screen draws (none falls back to a dissolve)', () => {
  for (const theme of SLIDESHOW_THEMES) {
    const transition = transitionOf(theme.key);
    assert.ok(TRANSITIONS.includes(transition));
    assert.ok(transition !== 'dissolve' || theme.key === 'Dissolve', `${theme.key} is drawn as itself`);
  }
});
