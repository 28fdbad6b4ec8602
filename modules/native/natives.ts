// The contract of the natives in vp-crypto.c and vp-nal.c, one function each. On Moddable they are
// the modules "modules/native/vp-crypto" and "modules/native/vp-nal" (bound by xsc); in the XS
// test host the same C functions are installed on one global object (xs-host/natives.c). Every function writes into
// the arrays passed and allocates nothing; lengths other than those named throw a RangeError.

export interface NativeCrypto {
  /** ChaCha20-Poly1305 IETF seal of buffer[0, length) in place; the 16-byte tag at buffer[length]. */
  aeadSeal(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, buffer: Uint8Array, length: number): void;
  /** Open into output (sealed.length - 16 bytes): true when the tag matches, else false and output zeroed. */
  aeadOpen(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array, output: Uint8Array): boolean;
  /** X25519 public key of a 32-byte secret into out (32). */
  x25519Base(out: Uint8Array, secret: Uint8Array): void;
  /** X25519 shared secret into out (32); false (out zeroed) when it is all zero. */
  x25519(out: Uint8Array, secret: Uint8Array, peer: Uint8Array): boolean;
  /** Ed25519 public key of a 32-byte seed into out (32). */
  ed25519Public(out: Uint8Array, seed: Uint8Array): void;
  /** Ed25519 signature into out (64). */
  ed25519Sign(out: Uint8Array, seed: Uint8Array, message: Uint8Array): void;
  /** True when signature (64) of message verifies with publicKey (32). */
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /** SHA-512 into out (64). */
  sha512(out: Uint8Array, data: Uint8Array): void;
  /** HMAC-SHA-512 into out (64), key of any length. */
  hmacSha512(out: Uint8Array, key: Uint8Array, message: Uint8Array): void;
  /** base^exponent mod modulus, big-endian, into out (modulus.length bytes); the modulus must be odd. */
  modexp(out: Uint8Array, base: Uint8Array, exponent: Uint8Array, modulus: Uint8Array): void;
}

/**
 * The natives of vp-nal.c (the mirroring stream's NAL kernel): the Moddable module
 * "modules/native/vp-nal", and in the XS test host on the same global object as NativeCrypto.
 * A lengthSize other than 1, 2 or 4 throws a RangeError.
 */
export interface NativeNal {
  /**
   * Checks every length of the length-prefixed payload. True when all are good, with report =
   * [units, keyFrame 0 or 1, 0]; false with report = [index of the bad unit, 0, offset of its
   * length field]. Writes nothing else. report is 12 bytes holding three uint32 in the machine's
   * byte order (xsmc takes byte arrays only): read it with a Uint32Array on its buffer.
   */
  nalScan(payload: Uint8Array, lengthSize: number, report: Uint8Array): boolean;
  /**
   * Writes the Annex B of a payload nalScan accepted into output (payload.length + units *
   * (4 - lengthSize) bytes): the payload itself for 4-byte lengths (in place), else a separate
   * array. A refused payload, another output size or an overlap is a RangeError, nothing written.
   */
  nalWrite(payload: Uint8Array, lengthSize: number, output: Uint8Array): void;
}

/**
 * The native of vp-alac.c (the ALAC decoder's kernel, src/audio/alac/alac-kernel.ts): the
 * Moddable module "modules/native/vp-alac", and in the XS test host on the same global object.
 */
export interface NativeAlac {
  /**
   * Decodes one packet of a stream whose config is the 24-byte ALACSpecificConfig `cookie` into
   * `output`: the bytes of an Int16Array (sampleBytes 2: the samples' top 16 bits) or of an
   * Int32Array (4: the samples), interleaved, frameLength x numChannels samples at least. `work`
   * is a 4-byte aligned scratch of 16 bytes per sample of the frame length. Returns the samples
   * per channel, or a fault of ALAC_FAULT (src/audio/alac/alac-faults.ts) negated. A config the
   * decoder refuses, a short output or work buffer is a RangeError.
   */
  alacDecode(cookie: Uint8Array, packet: Uint8Array, output: Uint8Array, sampleBytes: number, work: Uint8Array): number;
}

/** A libavcodec AAC decoder of vp-aac.c: a host object, opaque to JavaScript. */
export type AacDecoderHandle = object & { readonly __aacDecoder: never };

/**
 * The natives of vp-aac.c (libavcodec's AAC decoder, realtime audio): the Moddable module
 * "modules/native/vp-aac" where libavcodec is linked (lin), and in the XS test host the global
 * object `__vpAac`. vp-aac-decoder.ts makes the AudioDecoder port of them. Data libavcodec
 * refuses throws an Error naming the cause; a wrong call (too few arguments, sizes out of range)
 * a TypeError or RangeError.
 */
export interface NativeAac {
  /**
   * A decoder of the stream whose AudioSpecificConfig is `config` (2 to 64 bytes), at sampleRate
   * (7350 to 96000) with `channels` (1 to 8). Throws when libavcodec refuses the config or it
   * describes another rate or channel count.
   */
  aacOpen(config: Uint8Array, sampleRate: number, channels: number): AacDecoderHandle;
  /**
   * Decodes one raw access unit (1 to 6144 bytes) into output, the bytes of an Int16Array
   * (interleaved); returns the frames written. Throws when libavcodec refuses the unit, or it
   * decodes to another rate or channel count than the stream's, or to more than output holds.
   */
  aacDecode(decoder: AacDecoderHandle, unit: Uint8Array, output: Uint8Array): number;
  /** Forgets the previous unit (the stream jumps). */
  aacFlush(decoder: AacDecoderHandle): void;
  /** Frees the decoder now; later calls throw "closed". */
  aacClose(decoder: AacDecoderHandle): void;
}
