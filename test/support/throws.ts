// One assertion for "throws this kind of error, with this message": the core's errors are
// values with reasons (PlistError, DiscoveryError...), and the suites check both. Portable.

import assert from 'node:assert/strict';

/** Fails unless `fn` throws an instance of `kind` whose message matches `pattern` (when given). */
export function assertThrowsKind(fn: () => unknown, kind: abstract new (...args: never[]) => Error, pattern?: RegExp): void {
  let caught: unknown;
  let threw = false;
  try {
    fn();
  } catch (error) {
    threw = true;
    caught = error;
  }
  if (!threw) assert.fail(`expected a ${kind.name}, nothing was thrown`);
  if (!(caught instanceof kind)) assert.fail(`expected a ${kind.name}, got ${String(caught)}`);
  if (pattern) assert.match(caught.message, pattern);
}
