// The words of a photo's 415, one place for a picture read whole (photo.ts) and one drawn as it
// arrives (photo-stream.ts): a sender sees the same reason whichever way its picture went.

import type { JpegFrame } from '../../platform';
import { describeJpegFrame } from '../media/jpeg';

/** The body is not a JPEG (`message`: the media check's JpegError). */
export function notJpegReason(message: string): string {
  return `the body is not a JPEG: ${message}`;
}

/** The screen's decoder cannot read this JPEG (Display.cannotShow's reason, or its failure while drawing). */
export function cannotShowReason(reason: string, frame: JpegFrame | undefined): string {
  const size = frame ? ` (${describeJpegFrame(frame)})` : '';
  return `the screen cannot show this JPEG${size}: ${reason}`;
}
