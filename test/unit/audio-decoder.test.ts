// The L16 decoder: big-endian samples to native Int16, whole frames only, at most the stream's
// frames per packet; formats it does not play refused with AudioDecodeError.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { AudioDecodeError, createPcmDecoder } from '../../src/audio/decoder';

test('big-endian samples come out as signed 16-bit, interleaved as sent', () => {
  const decoder = createPcmDecoder({ channels: 2, bitsPerSample: 16, framesPerPacket: 352 });
  assert.deepEqual(Array.from(decoder.decode(fromHex('0001' + 'ffff' + '8000' + '7fff'))), [1, -1, -32768, 32767]);
  assert.equal(decoder.decode(new Uint8Array(0)).length, 0);
  assert.equal(decoder.decode(new Uint8Array(352 * 4)).length, 704, 'a full packet');
});

test('a payload of part of a frame, or of more frames than the format says, is refused', () => {
  const decoder = createPcmDecoder({ channels: 2, bitsPerSample: 16, framesPerPacket: 4 });
  assert.throws(() => decoder.decode(new Uint8Array(6)), (error) => error instanceof AudioDecodeError && /6 bytes is not a whole number of 4-byte frames/.test(error.message));
  assert.throws(() => decoder.decode(new Uint8Array(20)), /5 frames, more than the stream's 4 per packet/);
});

test('depths other than 16 bits and odd channel counts are refused when the decoder is made', () => {
  assert.throws(() => createPcmDecoder({ channels: 2, bitsPerSample: 24, framesPerPacket: 352 }), AudioDecodeError);
  assert.throws(() => createPcmDecoder({ channels: 0, bitsPerSample: 16, framesPerPacket: 352 }), /0 channels/);
});
