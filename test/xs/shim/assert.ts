// A minimal `node:assert/strict` for the XS engine, with the subset the portable suites use:
// equal, notEqual, deepEqual, notDeepEqual, ok, throws, doesNotThrow, rejects, match, fail.

export class AssertionError extends Error {
  override name = 'AssertionError';
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? value.slice(0, 200) + '...' : value);
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})[${Array.from(value.subarray(0, 32)).join(',')}${value.length > 32 ? ',...' : ''}]`;
  if (value instanceof Date) return `Date(${value.getTime()})`;
  if (typeof value === 'object' && value !== null) {
    try {
      const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      return text.length > 300 ? text.slice(0, 300) + '...' : text;
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

function fail(message?: string | Error): never {
  if (message instanceof Error) throw message;
  throw new AssertionError(message ?? 'Failed');
}

/** Strict deep equality as node:assert/strict's deepEqual checks it, for the kinds we use. */
function deepEqualValues(a: unknown, b: unknown, seen: Map<object, object>): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (ArrayBuffer.isView(a)) {
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    const other = b as Map<unknown, unknown>;
    if (a.size !== other.size) return false;
    for (const [key, value] of a) {
      if (!other.has(key) || !deepEqualValues(value, other.get(key), seen)) return false;
    }
    return true;
  }
  if (a instanceof Set) {
    const other = b as Set<unknown>;
    if (a.size !== other.size) return false;
    for (const value of a) if (!other.has(value)) return false;
    return true;
  }
  if (a instanceof Error && (a.message !== (b as Error).message || a.name !== (b as Error).name)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!deepEqualValues((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], seen)) return false;
  }
  return true;
}

type Expected = RegExp | (new (...args: never[]) => unknown) | Record<string, unknown> | ((error: unknown) => boolean);

function checkExpected(error: unknown, expected: Expected | undefined, message?: string): void {
  if (expected === undefined) return;
  if (expected instanceof RegExp) {
    if (!expected.test(String(error))) fail(message ?? `thrown ${show(String(error))} does not match ${expected}`);
    return;
  }
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && error instanceof (expected as new () => unknown)) return;
    if (Error.isPrototypeOf(expected) || expected === Error) {
      fail(message ?? `thrown ${show(String(error))} is not an instance of ${(expected as { name: string }).name}`);
    }
    if ((expected as (error: unknown) => boolean)(error) === true) return;
    fail(message ?? `thrown ${show(String(error))} fails the validation function`);
  }
  for (const key of Object.keys(expected)) {
    const want = (expected as Record<string, unknown>)[key];
    const got = (error as Record<string, unknown>)[key];
    if (want instanceof RegExp && typeof got === 'string' && want.test(got)) continue;
    if (!deepEqualValues(got, want, new Map())) fail(message ?? `thrown error's ${key} is ${show(got)}, expected ${show(want)}`);
  }
}

function assert(value: unknown, message?: string): asserts value {
  if (!value) fail(message ?? `expected a truthy value, got ${show(value)}`);
}

const methods = {
  ok: assert,
  fail,
  equal(actual: unknown, expected: unknown, message?: string): void {
    if (!Object.is(actual, expected)) fail(message ?? `expected ${show(expected)}, got ${show(actual)}`);
  },
  notEqual(actual: unknown, expected: unknown, message?: string): void {
    if (Object.is(actual, expected)) fail(message ?? `expected a value other than ${show(expected)}`);
  },
  deepEqual(actual: unknown, expected: unknown, message?: string): void {
    if (!deepEqualValues(actual, expected, new Map())) fail(message ?? `expected ${show(expected)}, got ${show(actual)}`);
  },
  notDeepEqual(actual: unknown, expected: unknown, message?: string): void {
    if (deepEqualValues(actual, expected, new Map())) fail(message ?? `expected a value other than ${show(expected)}`);
  },
  throws(fn: () => unknown, expected?: Expected | string, message?: string): void {
    try {
      fn();
    } catch (error) {
      checkExpected(error, typeof expected === 'string' ? undefined : expected, typeof expected === 'string' ? expected : message);
      return;
    }
    fail(typeof expected === 'string' ? expected : (message ?? 'Missing expected exception.'));
  },
  doesNotThrow(fn: () => unknown, message?: string): void {
    try {
      fn();
    } catch (error) {
      fail(message ?? `Got unwanted exception: ${show(String(error))}`);
    }
  },
  async rejects(promiseOrFn: Promise<unknown> | (() => Promise<unknown>), expected?: Expected, message?: string): Promise<void> {
    try {
      await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
    } catch (error) {
      checkExpected(error, expected, message);
      return;
    }
    fail(message ?? 'Missing expected rejection.');
  },
  match(actual: string, pattern: RegExp, message?: string): void {
    if (typeof actual !== 'string' || !pattern.test(actual)) fail(message ?? `${show(actual)} does not match ${pattern}`);
  },
  doesNotMatch(actual: string, pattern: RegExp, message?: string): void {
    if (typeof actual !== 'string' || pattern.test(actual)) fail(message ?? `${show(actual)} matches ${pattern}`);
  },
};

Object.assign(methods, { strictEqual: methods.equal, deepStrictEqual: methods.deepEqual, notStrictEqual: methods.notEqual });

const strict = Object.assign(assert, methods, { strict: assert, AssertionError });
export default strict;
