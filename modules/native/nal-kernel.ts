// The NAL kernel (src/mirror/nal-kernel.ts) on the XS natives of vp-nal.c: the same results and
// errors as the portable build. Per payload it allocates only what the contract returns: nothing
// with 4-byte lengths (converted in place), the Annex B array with 1 or 2.

import { isNalLengthSize, lengthSizeError, nalErrorAt, type NalKernel } from '../../src/mirror';
import type { NativeNal } from './natives';

/** The NAL kernel on `natives` (the module vp-nal on Moddable, the test host's global object). */
export function createNativeNalKernel(natives: NativeNal): NalKernel {
  // Reused for every payload: [units, keyFrame, 0], or [bad unit, 0, its offset], as uint32s.
  const reportBytes = new Uint8Array(12);
  const report = new Uint32Array(reportBytes.buffer);
  return {
    name: 'native',
    toAnnexB(payload, lengthSize) {
      if (!isNalLengthSize(lengthSize)) throw lengthSizeError(lengthSize);
      if (!natives.nalScan(payload, lengthSize, reportBytes)) throw nalErrorAt(payload, lengthSize, report[0], report[2]);
      const units = report[0];
      const keyFrame = report[1] === 1;
      const accessUnit = lengthSize === 4 ? payload : new Uint8Array(payload.length + units * (4 - lengthSize));
      natives.nalWrite(payload, lengthSize, accessUnit);
      return { accessUnit, keyFrame, nalCount: units };
    },
  };
}
