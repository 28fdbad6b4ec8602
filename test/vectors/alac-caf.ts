// Reads ALAC packets out of a CAF file (Apple's Core Audio Format) as ffmpeg writes them: the
// magic cookie (kuki chunk), the packet sizes (pakt: one variable-length integer per packet) and
// the packets themselves (data, after its 4-byte edit count). For the vector generator
// (make-alac.ts) and the ffmpeg oracle (test/oracle/alac-ffmpeg.oracle.test.ts); Node only.

export interface Caf {
  cookie: Buffer;
  packets: Buffer[];
  framesPerPacket: number;
  validFrames: number;
}

/** The kuki, pakt and data chunks of a CAF file (Apple's Core Audio Format). */
export function readCaf(file: Buffer): Caf {
  if (file.toString('latin1', 0, 4) !== 'caff') throw new Error('not a CAF file');
  let at = 8;
  let cookie: Buffer | undefined;
  let sizes: number[] = [];
  let validFrames = 0;
  let framesPerPacket = 0;
  let data: Buffer | undefined;
  while (at + 12 <= file.length) {
    const type = file.toString('latin1', at, at + 4);
    let size = Number(file.readBigInt64BE(at + 4));
    const body = at + 12;
    if (size < 0) size = file.length - body;
    const chunk = file.subarray(body, body + size);
    if (type === 'desc') framesPerPacket = chunk.readUInt32BE(20);
    if (type === 'kuki') cookie = Buffer.from(chunk);
    if (type === 'data') data = chunk.subarray(4); // after the edit count
    if (type === 'pakt') {
      const packets = Number(chunk.readBigInt64BE(0));
      validFrames = Number(chunk.readBigInt64BE(8));
      // Then the packet sizes as variable-length integers: 7 bits a byte, high bit = more follow.
      let p = 24;
      sizes = [];
      for (let i = 0; i < packets; i++) {
        let value = 0;
        for (;;) {
          const byte = chunk[p++];
          value = value * 128 + (byte & 0x7f);
          if ((byte & 0x80) === 0) break;
        }
        sizes.push(value);
      }
    }
    at = body + size;
  }
  if (cookie === undefined || data === undefined) throw new Error('CAF without kuki or data');
  const packets: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    packets.push(Buffer.from(data.subarray(offset, offset + size)));
    offset += size;
  }
  return { cookie, packets, framesPerPacket, validFrames };
}

