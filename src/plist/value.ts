// The property-list value model shared by the XML, binary and path helpers, and its error type.

/**
 * A property-list value as the core sees it:
 * - string, boolean, Date, Uint8Array (data), arrays and dictionaries (plain objects);
 * - integers as number when they are safe integers, otherwise bigint (64-bit and the unsigned
 *   values binary plists keep in 16 bytes);
 * - reals as number; a `PlistReal` forces the real type for a value that happens to be integral
 *   (spec 2.9 `rate` is a real even when it is 1);
 * - `PlistUid` for the keyed-archiver UID type of binary plists.
 */
export type PlistValue =
  | string
  | number
  | bigint
  | boolean
  | Date
  | Uint8Array
  | PlistReal
  | PlistUid
  | PlistValue[]
  | PlistDict;

export interface PlistDict {
  [key: string]: PlistValue;
}

/** A real number that is written as a real even when it is integral. */
export class PlistReal {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
}

/** The binary plist UID type (0x80), an unsigned integer reference used by keyed archives. */
export class PlistUid {
  constructor(readonly value: number) {}
}

/** Marks a number to be written as a real. */
export function real(value: number): PlistReal {
  return new PlistReal(value);
}

/** Every decode or encode failure. `message` names what is wrong and, where known, where. */
export class PlistError extends Error {
  override name = 'PlistError';
}

/** Limits applied while decoding untrusted input. Every one is configurable. */
export interface PlistLimits {
  /** Largest input accepted, in bytes. */
  maxBytes: number;
  /** Deepest nesting of arrays and dictionaries. */
  maxDepth: number;
  /** Most objects (values of any kind) in one document. */
  maxObjects: number;
}

export const DEFAULT_PLIST_LIMITS: PlistLimits = {
  maxBytes: 16 * 1024 * 1024,
  maxDepth: 64,
  maxObjects: 1 << 20,
};

export function isPlistDict(value: unknown): value is PlistDict {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Date) &&
    !(value instanceof PlistReal) &&
    !(value instanceof PlistUid)
  );
}

/** A value's plist type in words for a refusal (`timingPort is a string, not an integer`). */
export function plistTypeName(value: PlistValue): string {
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return 'integer';
  if (typeof value === 'number' || value instanceof PlistReal) return 'real';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Uint8Array) return 'data';
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'array';
  if (isPlistDict(value)) return 'dictionary';
  return 'value';
}

/** Sets a dictionary entry safely: a key named `__proto__` becomes an own property. */
export function setEntry(dict: PlistDict, key: string, value: PlistValue): void {
  if (key === '__proto__') {
    Object.defineProperty(dict, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    dict[key] = value;
  }
}

/** Own entry of a dictionary, never an inherited property such as `toString`. */
export function getEntry(dict: PlistDict, key: string): PlistValue | undefined {
  return Object.prototype.hasOwnProperty.call(dict, key) ? dict[key] : undefined;
}
