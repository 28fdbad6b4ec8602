// The mirroring payloads the NAL kernel benches convert (mirror.bench.ts on Node, xs-mirror-bench.ts
// in the XS test host): screen mirroring at 1080p60 and about 20 Mbit/s sends about 42 KB per
// frame (20e6 / 8 / 60), a few NAL units each, and now and then an IDR frame of about 200 KB.
// Each comes with its Annex B, built by concatenation (not by a kernel), and the places of its
// length fields, so a bench can put back what an in-place conversion overwrote. Portable.

import { annexB, lengthPrefixed, NAL_TYPE, nalType } from '../../src/mirror/annexb-stream';
import { fillerUnit as unit } from '../support/arbitrary';

export interface MirrorPayload {
  /** Names the workload in the figures: `p-frame` or `idr-frame`. */
  readonly kind: string;
  readonly lengthSize: 1 | 2 | 4;
  readonly payload: Uint8Array;
  readonly annexB: Uint8Array;
  readonly keyFrame: boolean;
  readonly nalCount: number;
  /** Offsets of the length fields, and their bytes, in unit order. */
  readonly fieldOffsets: readonly number[];
  readonly fieldBytes: Uint8Array;
}

const SEI = 0x06;
const NON_IDR = 0x41;
const IDR = 0x65;

function build(kind: string, lengthSize: 1 | 2 | 4, units: Uint8Array[]): MirrorPayload {
  const payload = lengthPrefixed(units, lengthSize);
  const fieldOffsets: number[] = [];
  for (let at = 0, i = 0; i < units.length; at += lengthSize + units[i].length, i++) fieldOffsets.push(at);
  const fieldBytes = new Uint8Array(fieldOffsets.length * lengthSize);
  fieldOffsets.forEach((offset, i) => fieldBytes.set(payload.subarray(offset, offset + lengthSize), i * lengthSize));
  return { kind, lengthSize, payload, annexB: annexB(units), keyFrame: units.some((nal) => nalType(nal) === NAL_TYPE.sliceIdr), nalCount: units.length, fieldOffsets, fieldBytes };
}

/** A P frame of about 42 KB (an SEI and three slices) and an IDR frame of about 200 KB (an SEI and four slices). */
export function mirrorPayloads(lengthSize: 1 | 2 | 4): MirrorPayload[] {
  return [
    build('p-frame', lengthSize, [unit(SEI, 18, 1), unit(NON_IDR, 13_950, 2), unit(NON_IDR, 14_020, 3), unit(NON_IDR, 13_700, 4)]),
    build('idr-frame', lengthSize, [unit(SEI, 24, 5), unit(IDR, 51_000, 6), unit(IDR, 50_500, 7), unit(IDR, 49_800, 8), unit(IDR, 52_100, 9)]),
  ];
}

/** Puts back the length fields of `sample` into `payload` (what an in-place conversion overwrote). */
export function restoreLengths(sample: MirrorPayload, payload: Uint8Array): void {
  const size = sample.lengthSize;
  const offsets = sample.fieldOffsets;
  const bytes = sample.fieldBytes;
  for (let i = 0; i < offsets.length; i++) {
    for (let j = 0; j < size; j++) payload[offsets[i] + j] = bytes[i * size + j];
  }
}

