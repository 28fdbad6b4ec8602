// Static proof that src/ is layered (DESIGN 3): no import cycle between its files, and no import
// from a lower part of the core to a higher one. A part is a top-level file or folder of src/;
// LAYERS gives each its floor, and a part imports only from floors below its own. Inside
// src/receiver/ the rooms have floors of their own (RECEIVER_FLOORS), held the same way.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sourceFiles } from './source-files';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The floor of each part of the core. Byte helpers at the bottom; the ports and small shared
 * types above them; the protocol's codecs and message layer; pairing (uses the message layer's
 * SecureChannel); the receiver at the top, the only part that composes the others.
 */
export const LAYERS: Readonly<Record<string, number>> = {
  bytes: 0,
  errors: 0,
  uuid: 1,
  dialect: 1,
  platform: 1,
  'connection-state': 1,
  'counted-log': 1,
  plist: 2,
  http: 2,
  discovery: 2,
  /** Clock synchronisation (NTP, RAOP timing): codecs and a clock filter, nothing below bytes. */
  timing: 2,
  pairing: 3,
  mirror: 3,
  /** Realtime audio (RTP, SDP, the playout engine, ALAC): opens sealed packets with pairing's frame kernel. */
  audio: 4,
  receiver: 5,
};

const RECEIVER = path.join(SRC, 'receiver');

/**
 * The floors inside src/receiver/: its settings (the files at its top beside receiver.ts: config,
 * limits, profiles, identity) at the bottom; the connection machinery (connection/: connections,
 * routing, reverse connections, the driver); the media session every screen feature shares
 * (media/); one room per feature, none of which imports another; realtime audio (audio/) above
 * the sessions its streams live in (a stream is set up, flushed and ended by its session's
 * requests: session/ calls it through its SessionAudio interface and imports nothing of it);
 * receiver.ts, the composition root, alone at the top.
 */
export const RECEIVER_FLOORS: Readonly<Record<string, number>> = {
  settings: 0,
  connection: 1,
  media: 2,
  photo: 3,
  slideshow: 3,
  video: 3,
  mirror: 3,
  info: 3,
  pairing: 3,
  session: 3,
  audio: 4,
  receiver: 5,
  /** index.ts, the folder's face for hosts and the other parts of src/: above everything it shows. */
  face: 6,
};

/** The room of src/receiver/ a file belongs to: its folder, `receiver` for receiver.ts, `face` for index.ts, else `settings`. */
export function roomOf(file: string): string {
  const parts = path.relative(RECEIVER, file).split(path.sep);
  if (parts.length > 1) return parts[0];
  if (parts[0] === 'index.ts') return 'face';
  return parts[0] === 'receiver.ts' ? 'receiver' : 'settings';
}

/** Upward imports between rooms of src/receiver/ in `graph`, one line each. */
export function receiverFloorProblems(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith(RECEIVER + path.sep)) continue;
    const from = roomOf(file);
    if (RECEIVER_FLOORS[from] === undefined) {
      problems.push(`${path.relative(SRC, file)}: room "${from}" has no floor in RECEIVER_FLOORS`);
      continue;
    }
    for (const target of targets) {
      if (!target.startsWith(RECEIVER + path.sep)) continue;
      const to = roomOf(target);
      if (to === from) continue;
      if (!(RECEIVER_FLOORS[to] < RECEIVER_FLOORS[from])) problems.push(`${path.relative(SRC, file)} (${from}, floor ${RECEIVER_FLOORS[from]}) imports ${path.relative(SRC, target)} (${to}, floor ${RECEIVER_FLOORS[to]})`);
    }
  }
  return problems;
}


/** The file a relative specifier names (`./x` -> x.ts, `./folder` -> folder/index.ts). */
function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** The part of src/ a file belongs to: its top-level folder, or its own name at the top. */
export function partOf(file: string): string {
  const [first] = path.relative(SRC, file).split(path.sep);
  return first.replace(/\.ts$/, '');
}

/** Every relative import of src/, as file -> imported files (type-only imports included: they tie the design too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets: string[] = [];
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = resolve(file, ref.fileName);
      assert.ok(target, `${path.relative(SRC, file)} imports ${ref.fileName}, which is not a file of src/`);
      targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The cycles of a graph, each as a list of files (Tarjan's strongly connected components of size > 1, or a self-import). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the stack.
  for (const root of graph.keys()) {
    if (indices.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    indices.set(root, index);
    lowlinks.set(root, index++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next++];
        if (!indices.has(target)) {
          indices.set(target, index);
          lowlinks.set(target, index++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowlinks.set(frame.node, Math.min(lowlinks.get(frame.node)!, indices.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        lowlinks.set(parent, Math.min(lowlinks.get(parent)!, lowlinks.get(frame.node)!));
      }
      if (lowlinks.get(frame.node) === indices.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

test('src/ has no import cycle', () => {
  const cycles = cyclesOf(importGraph()).map((cycle) => cycle.map((file) => path.relative(SRC, file)));
  assert.deepEqual(cycles, []);
});

test('every part of src/ has a floor, and imports only from floors below its own', () => {
  const problems: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = partOf(file);
    if (LAYERS[from] === undefined) {
      problems.push(`${path.relative(SRC, file)}: part "${from}" has no floor in LAYERS`);
      continue;
    }
    for (const target of targets) {
      const to = partOf(target);
      if (to === from) continue;
      if (!(LAYERS[to] < LAYERS[from])) problems.push(`${path.relative(SRC, file)} (${from}, floor ${LAYERS[from]}) imports ${path.relative(SRC, target)} (${to}, floor ${LAYERS[to]})`);
    }
  }
  assert.deepEqual(problems, []);
});

test('src/receiver/ rooms import only from floors below their own (settings < connection < media < features < receiver.ts)', () => {
  assert.deepEqual(receiverFloorProblems(importGraph()), []);
});

test('the inner-floor check names a planted upward import and an import between features', () => {
  const graph = importGraph();
  const at = (relative: string): string => path.join(RECEIVER, relative);
  const planted = new Map(graph);
  // The connection machinery reaching up into a feature, and one feature into another.
  planted.set(at('connection/router.ts'), [...(graph.get(at('connection/router.ts')) ?? []), at('video/video-session.ts')]);
  planted.set(at('photo/photo.ts'), [...(graph.get(at('photo/photo.ts')) ?? []), at('slideshow/slideshow.ts')]);
  assert.deepEqual(receiverFloorProblems(planted), [
    'receiver/connection/router.ts (connection, floor 1) imports receiver/video/video-session.ts (video, floor 3)',
    'receiver/photo/photo.ts (photo, floor 3) imports receiver/slideshow/slideshow.ts (slideshow, floor 3)',
  ]);
});

test('the cycle finder finds cycles, self-imports and nothing in a tree', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
    ['f', ['d']],
  ]);
  assert.deepEqual(cyclesOf(graph), [['a', 'b', 'c'], ['e']]);
  assert.deepEqual(cyclesOf(new Map([['x', ['y']], ['y', []]])), []);
});
