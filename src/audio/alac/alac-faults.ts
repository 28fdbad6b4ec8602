// Why an ALAC frame was refused: one code per fault, shared by every build of the kernel (this
// TypeScript reference, assemblyscript/alac-kernel.ts, modules/native/vp-alac.c return -code),
// and the words each becomes, so all builds throw the same AudioDecodeError.

import { AudioDecodeError } from '../decoder';

/** The fault codes (positive; the builds return them negated). */
export const ALAC_FAULT = {
  truncated: 1,
  unsupportedElement: 2,
  tooManyChannels: 3,
  tooManySamples: 4,
  noSamples: 5,
  sampleCountMismatch: 6,
  badShift: 7,
  runPastFrame: 8,
  missingChannels: 9,
} as const;

export type AlacFault = (typeof ALAC_FAULT)[keyof typeof ALAC_FAULT];

/** What each fault means, in the words of the error. */
const FAULT_WORDS: Record<AlacFault, string> = {
  [ALAC_FAULT.truncated]: 'the packet ends inside the frame',
  [ALAC_FAULT.unsupportedElement]: 'a coupling channel or program config element (not in ALAC streams)',
  [ALAC_FAULT.tooManyChannels]: 'elements for more channels than the config has',
  [ALAC_FAULT.tooManySamples]: 'a partial frame of more samples than the frame length',
  [ALAC_FAULT.noSamples]: 'a partial frame of no samples',
  [ALAC_FAULT.sampleCountMismatch]: 'elements of one frame with different sample counts',
  [ALAC_FAULT.badShift]: 'a shift of 3 bytes (at most 2)',
  [ALAC_FAULT.runPastFrame]: 'a run of zeros past the end of the frame',
  [ALAC_FAULT.missingChannels]: 'the frame ends before every channel has its samples',
};

/** The AudioDecodeError for fault `code` in a packet of `bytes` bytes. */
export function alacFaultError(code: number, bytes: number): AudioDecodeError {
  const words = FAULT_WORDS[code as AlacFault] ?? `fault ${code}`;
  return new AudioDecodeError(`ALAC packet of ${bytes} bytes: ${words}`);
}
