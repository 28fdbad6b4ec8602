// Dotted key paths: the spec writes nested keys as `settings.slideDuration`; on the wire they are nested dicts.

import { PlistError, getEntry, isPlistDict, setEntry, type PlistDict, type PlistValue } from './value';

/**
 * The value at a dotted path (`info.id`), following own entries only, or undefined when a step
 * is missing or a step before the last is not a dictionary. Keys that themselves contain a dot
 * cannot be named this way.
 */
export function getPath(dict: PlistDict, path: string): PlistValue | undefined {
  let current: PlistValue = dict;
  let start = 0;
  for (;;) {
    const dot = path.indexOf('.', start);
    const key = dot < 0 ? path.slice(start) : path.slice(start, dot);
    if (!isPlistDict(current)) return undefined;
    const next = getEntry(current, key);
    if (next === undefined || dot < 0) return next;
    current = next;
    start = dot + 1;
  }
}

function splitPath(path: string): string[] {
  const keys = path.split('.');
  for (const key of keys) {
    if (key === '') throw new PlistError(`plist path ${JSON.stringify(path)} has an empty step`);
  }
  return keys;
}

function kindOf(value: PlistValue): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'data';
  if (value instanceof Date) return 'a date';
  return `a ${typeof value === 'object' ? value.constructor.name : typeof value}`;
}

/**
 * Sets the value at a dotted path, creating the missing intermediate dictionaries. An
 * intermediate that exists and is not a dictionary is a PlistError; an empty step
 * (`a..b`, `.a`) is too.
 */
export function setPath(dict: PlistDict, path: string, value: PlistValue): void {
  const keys = splitPath(path);
  let current = dict;
  for (let i = 0; i < keys.length - 1; i++) {
    const existing = getEntry(current, keys[i]);
    if (existing === undefined) {
      const created: PlistDict = {};
      setEntry(current, keys[i], created);
      current = created;
    } else if (isPlistDict(existing)) {
      current = existing;
    } else {
      const prefix = keys.slice(0, i + 1).join('.');
      throw new PlistError(`plist path ${JSON.stringify(path)}: ${JSON.stringify(prefix)} is ${kindOf(existing)}, not a dictionary`);
    }
  }
  setEntry(current, keys[keys.length - 1], value);
}

/**
 * Nests a flat record with dotted keys: `{ 'a.b': 1, c: 2 }` becomes `{ a: { b: 1 }, c: 2 }`.
 * Two keys that claim the same place (`a` and `a.b`, or `a.b` twice through different
 * spellings) are a PlistError rather than one silently overwriting or merging into the other;
 * values are placed as given (dictionaries among them are not copied or merged into).
 */
export function expandDotted(flat: Record<string, PlistValue>): PlistDict {
  const result: PlistDict = {};
  const created = new Set<PlistDict>([result]);
  // Which flat key first claimed each place, for messages.
  const claimedBy = new Map<string, string>();
  for (const path of Object.keys(flat)) {
    const keys = splitPath(path);
    let current = result;
    for (let i = 0; i < keys.length; i++) {
      const place = keys.slice(0, i + 1).join('.');
      const existing = getEntry(current, keys[i]);
      const last = i === keys.length - 1;
      if (existing !== undefined && (last || !isPlistDict(existing) || !created.has(existing))) {
        throw new PlistError(`plist path ${JSON.stringify(path)} collides with ${JSON.stringify(claimedBy.get(place) ?? place)}`);
      }
      if (!claimedBy.has(place)) claimedBy.set(place, path);
      if (last) setEntry(current, keys[i], flat[path]);
      else if (existing !== undefined) current = existing as PlistDict;
      else {
        const made: PlistDict = {};
        created.add(made);
        setEntry(current, keys[i], made);
        current = made;
      }
    }
  }
  return result;
}
