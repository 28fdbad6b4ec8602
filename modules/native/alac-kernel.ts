// The ALAC kernel (src/audio/alac/alac-kernel.ts) on the XS native of vp-alac.c: the same results
// and errors as the portable build. Per stream config it makes the cookie the native reads and a
// work buffer; per packet only a byte view of the output (xsmc takes byte arrays only).

import { alacCookie, alacFaultError, checkAlacOutput, type AlacConfig, type AlacKernel } from '../../src/audio/alac';
import type { NativeAlac } from './natives';

/** Work bytes per sample of the frame length (vp-alac.c: two channels and a pair's shifted bits). */
const WORK_PER_SAMPLE = 16;

/** The ALAC kernel on `natives` (the module vp-alac on Moddable, the test host's global object). */
export function createNativeAlacKernel(natives: NativeAlac): AlacKernel {
  let lastConfig: AlacConfig | undefined;
  let cookie: Uint8Array = new Uint8Array(0);
  let work = new Uint8Array(0);
  return {
    name: 'native',
    decode(config, packet, output) {
      checkAlacOutput(config, output);
      if (config !== lastConfig) {
        cookie = alacCookie(config);
        if (work.length < config.frameLength * WORK_PER_SAMPLE) work = new Uint8Array(config.frameLength * WORK_PER_SAMPLE);
        lastConfig = config;
      }
      const bytes = new Uint8Array(output.buffer, output.byteOffset, output.byteLength);
      const frames = natives.alacDecode(cookie, packet, bytes, output.BYTES_PER_ELEMENT, work);
      if (frames < 0) throw alacFaultError(-frames, packet.length);
      return frames;
    },
  };
}
