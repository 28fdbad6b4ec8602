// Dotted key paths: the spec's `settings.slideDuration` names nested dictionaries on the wire.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandDotted, getPath, setPath } from '../../src/plist/path';
import { PlistError, PlistReal, type PlistDict } from '../../src/plist/value';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a PlistError whose message matches `pattern`. */
const throwsPlistError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, PlistError, pattern);


test('getPath reads nested entries by dotted path (spec 2.7 settings.slideDuration)', () => {
  const body: PlistDict = { settings: { slideDuration: 5, theme: 'Dissolve' }, state: 'playing' };
  assert.equal(getPath(body, 'settings.slideDuration'), 5);
  assert.equal(getPath(body, 'settings.theme'), 'Dissolve');
  assert.equal(getPath(body, 'state'), 'playing');
  assert.deepEqual(getPath(body, 'settings'), { slideDuration: 5, theme: 'Dissolve' });
});

test('getPath is undefined when a step is missing or not a dictionary', () => {
  const body: PlistDict = { info: { id: 3 }, list: [{ a: 1 }], text: 'x', real: new PlistReal(1) };
  assert.equal(getPath(body, 'info.key'), undefined);
  assert.equal(getPath(body, 'nothing.id'), undefined);
  assert.equal(getPath(body, 'info.id.deeper'), undefined);
  assert.equal(getPath(body, 'list.0'), undefined, 'arrays are not stepped into');
  assert.equal(getPath(body, 'text.length'), undefined);
  assert.equal(getPath(body, 'real.value'), undefined);
});

test('getPath follows own entries only, never inherited properties', () => {
  const body: PlistDict = { info: {} };
  assert.equal(getPath(body, 'toString'), undefined);
  assert.equal(getPath(body, 'info.constructor'), undefined);
  assert.equal(getPath(body, '__proto__'), undefined);
  assert.equal(getPath(body, 'info.__proto__.x'), undefined);
});

test('setPath creates the intermediate dictionaries', () => {
  const body: PlistDict = {};
  setPath(body, 'playbackCapabilities.supportsFPSSecureStop', true);
  setPath(body, 'playbackCapabilities.supportsUIForAudioOnlyContent', false);
  setPath(body, 'name', 'Frame');
  assert.deepEqual(body, {
    playbackCapabilities: { supportsFPSSecureStop: true, supportsUIForAudioOnlyContent: false },
    name: 'Frame',
  });
  setPath(body, 'name', 'Renamed');
  assert.equal(body.name, 'Renamed', 'an existing leaf is replaced');
});

test('setPath refuses to step through a value that is not a dictionary, or an empty step', () => {
  const body: PlistDict = { info: 'text', list: [] };
  throwsPlistError(() => setPath(body, 'info.id', 1), /"info" is a string, not a dictionary/);
  throwsPlistError(() => setPath(body, 'list.x', 1), /"list" is an array, not a dictionary/);
  throwsPlistError(() => setPath(body, 'a..b', 1), /empty step/);
  throwsPlistError(() => setPath(body, '.a', 1), /empty step/);
  throwsPlistError(() => setPath(body, '', 1), /empty step/);
});

test('setPath keeps a __proto__ step as an own entry, never the prototype', () => {
  const body: PlistDict = {};
  setPath(body, '__proto__.polluted', 1);
  assert.ok(Object.prototype.hasOwnProperty.call(body, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(getPath(body, '__proto__.polluted'), 1);
});

test('expandDotted nests a flat record', () => {
  assert.deepEqual(expandDotted({ 'a.b': 1, c: 2 }), { a: { b: 1 }, c: 2 });
  assert.deepEqual(expandDotted({ 'info.id': 3, 'info.key': '1', data: new Uint8Array([1]) }), {
    info: { id: 3, key: '1' },
    data: new Uint8Array([1]),
  });
  assert.deepEqual(expandDotted({}), {});
});

test('expandDotted refuses keys that claim the same place', () => {
  throwsPlistError(() => expandDotted({ 'a.b': 1, a: 2 }), /"a" collides with "a.b"/);
  throwsPlistError(() => expandDotted({ 'x.y.z': 1, 'x.y': 2 }), /"x.y" collides with "x.y.z"/);
  throwsPlistError(() => expandDotted({ a: 2, 'a.b': 1 }), /"a.b" collides with "a"/);
  throwsPlistError(() => expandDotted({ a: { x: 1 }, 'a.b': 1 }), /collides/);
  throwsPlistError(() => expandDotted({ 'a..b': 1 }), /empty step/);
});

test('expandDotted leaves the dictionaries it was given unchanged', () => {
  const inner: PlistDict = { x: 1 };
  const result = expandDotted({ 'p.q': inner });
  assert.equal(getPath(result, 'p.q'), inner);
  assert.deepEqual(inner, { x: 1 });
});
