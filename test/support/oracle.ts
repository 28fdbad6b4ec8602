// Python's plistlib as the oracle for our plist codecs (Node only: it runs python3).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fromHex, toHex } from '../../src/bytes';
import type { PlistValue } from '../../src/plist/value';
import { toTagged, type Tagged } from './tagged';

export { toTagged, type Tagged } from './tagged';

const BRIDGE = fileURLToPath(new URL('./plistlib_bridge.py', import.meta.url));

function runBridge(request: unknown): unknown[] {
  const result = spawnSync('python3', [BRIDGE], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`plistlib bridge failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as unknown[];
}

/** plistlib.dumps of each value (keys in insertion order), in one python3 run. */
export function plistlibDumps(values: PlistValue[], format: 'xml' | 'binary'): Uint8Array[] {
  const docs = runBridge({ op: 'dumps', format, values: values.map(toTagged) });
  return docs.map((hex) => fromHex(hex as string));
}

/** plistlib.loads of each document, as tagged values, or `{ error }` where plistlib refused it. */
export function plistlibLoads(docs: Uint8Array[]): (Tagged | { error: string })[] {
  return runBridge({ op: 'loads', docs: docs.map((doc) => toHex(doc)) }) as (Tagged | { error: string })[];
}
