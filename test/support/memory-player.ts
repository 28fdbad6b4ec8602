// An in-memory Player (src/platform.ts) for core unit tests: records every call the core makes,
// and lets a test send the reports a real player would (`report`, with a complete report built
// from a few facts). A test implementation of the port, like memory-ports' display. Portable.

import type { Player, PlayerReport, PlayerState } from '../../src/platform';

export type PlayerCall =
  | { kind: 'load'; item: number; url: string; start: { seconds?: number; fraction?: number } }
  | { kind: 'rate'; rate: number }
  | { kind: 'seek'; seconds: number }
  | { kind: 'stop' };

/** A report with every field, from the state and what the test gives. */
export function playerReport(item: number, state: PlayerState, facts: Partial<PlayerReport> = {}): PlayerReport {
  const playing = state === 'playing';
  const ready = state === 'playing' || state === 'paused';
  return {
    item,
    state,
    position: 0,
    duration: 0,
    rate: playing ? 1 : 0,
    readyToPlay: ready,
    bufferEmpty: !ready,
    bufferFull: false,
    likelyToKeepUp: ready,
    loaded: [],
    seekable: [],
    bytes: 0,
    requests: 0,
    stalls: 0,
    framesDropped: 0,
    watched: 0,
    ...facts,
  };
}

export class MemoryPlayer implements Player {
  readonly calls: PlayerCall[] = [];
  onReport: (report: PlayerReport) => void = () => {};

  load(item: number, url: string, start: { readonly seconds?: number; readonly fraction?: number }): void {
    this.calls.push({ kind: 'load', item, url, start: { ...start } });
  }
  setRate(rate: number): void {
    this.calls.push({ kind: 'rate', rate });
  }
  seek(seconds: number): void {
    this.calls.push({ kind: 'seek', seconds });
  }
  stop(): void {
    this.calls.push({ kind: 'stop' });
  }

  /** The item number of the last load (what reports must carry). */
  get item(): number {
    for (let i = this.calls.length - 1; i >= 0; i--) {
      const call = this.calls[i];
      if (call.kind === 'load') return call.item;
    }
    throw new Error('the player was never asked to load anything');
  }

  /** The calls' kinds in order: `['load', 'rate', 'stop']`. */
  get kinds(): string[] {
    return this.calls.map((call) => call.kind);
  }

  /** Sends a report as the player would, about the last item loaded unless `facts.item` says otherwise. */
  report(state: PlayerState, facts: Partial<PlayerReport> = {}): void {
    this.onReport(playerReport(facts.item ?? this.item, state, facts));
  }
}
