// Mirroring hand-off latency (P5): from the last byte of a video packet (spec 2.14) reaching the
// receiver's connection to the decoder's decode() call, through the whole core path: the
// connection in `stream` mode, the packet reader, the NAL kernel (length-prefixed to Annex B),
// parameter sets before key frames and clock recovery. The stream is 1080p60 at about 20 Mbit/s
// (a 42 KB frame on average, a key frame of 5x every second, four slices per frame), delivered in
// 64 KB pieces as a socket does. Reports min/median/max per frame in ms with each NAL kernel the
// Node host can use (portable TypeScript, and WebAssembly when built), and checks every access
// unit decoded.

import { concat, equal } from '../../src/bytes';
import { buildAvcC, parameterSetsAnnexB, parseAvcC } from '../../src/mirror/avcc';
import { annexB, lengthPrefixed } from '../../src/mirror/annexb-stream';
import { portableNalKernel, type NalKernel } from '../../src/mirror/nal-kernel';
import { msToNtp } from '../../src/timing';
import { PACKET_TYPE, writePacket } from '../../src/mirror/packet';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { fillerUnit } from '../support/arbitrary';
import { memoryUdp } from '../support/mirror-ports';
import type { ScreenGeometry, VideoDecoder, VideoDecoderConfig } from '../../src/platform';
import { WasmNalKernel } from '../../hosts/node/kernels/nal-kernel';
import { report, spreadFields, verify } from './measure';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const FRAMES = 600;
const FPS = 60;
const BITS_PER_SECOND = 20_000_000;
const SLICES = 4;
const SOCKET_CHUNK = 64 * 1024;
const SPS = Uint8Array.of(0x67, 0x64, 0x00, 0x2a, 0xac, 0x2c, 0x6a, 0x81, 0xe0, 0x08, 0x9f, 0x96);
const PPS = Uint8Array.of(0x68, 0xee, 0x3c, 0xb0);

/** A frame's slices: NAL header (IDR 0x65 or non-IDR 0x41) and filler slice data. */
function frameUnits(index: number, bytes: number, seed: number): Uint8Array[] {
  const header = index % FPS === 0 ? 0x65 : 0x41;
  return Array.from({ length: SLICES }, (_, slice) => fillerUnit(header, Math.floor(bytes / SLICES), seed + slice));
}

export function runMirrorHandoffBench(nalKernel: NalKernel = portableNalKernel): void {
  const averageFrame = BITS_PER_SECOND / 8 / FPS;
  // One key frame of 5 average frames a second; the others share the rest.
  const keyBytes = Math.round(averageFrame * 5);
  const otherBytes = Math.round((averageFrame * FPS - keyBytes) / (FPS - 1));
  const frames = Array.from({ length: FRAMES }, (_, index) => frameUnits(index, index % FPS === 0 ? keyBytes : otherBytes, index + 1));
  const packets = frames.map((units, index) => {
    const { seconds, fraction } = msToNtp((index * 1000) / FPS);
    return writePacket(PACKET_TYPE.video, lengthPrefixed(units, 4), seconds, fraction);
  });
  const avcC = buildAvcC([SPS], [PPS], 4);
  const parameterSets = parameterSetsAnnexB(parseAvcC(avcC));

  let decodedAt = 0;
  const decoded: Uint8Array[] = [];
  const geometry: ScreenGeometry = { width: 1920, height: 1080, refreshRate: 1 / 60, overscanned: false };
  const decoder: VideoDecoder = {
    geometry,
    configure: (_config: VideoDecoderConfig) => {},
    decode: (accessUnit) => {
      decodedAt = performance.now();
      decoded.push(accessUnit);
    },
    reset: () => {},
  };
  const clock = new ManualClock();
  const receiver = new Receiver(makeConfig({ ntpPort: 0 }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store: new MemoryStore(), log: recordingLogger(), videoDecoder: decoder, udp: memoryUdp().binder, nalKernel });
  const connection = receiver.openMirror({ remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7100 }, 0)!;
  const request = encodeBinaryPlist({ deviceID: 1, sessionID: 1, version: '130.16', latencyMs: 0, fpsInfo: [], timestampInfo: [] });
  const head = new TextEncoder().encode(`POST /stream HTTP/1.1\r\nContent-Length: ${request.length}\r\n\r\n`);
  connection.receive(concat(head, request, writePacket(PACKET_TYPE.codecData, avcC)), 0);

  const latencies: number[] = [];
  let bytes = 0;
  for (let index = 0; index < packets.length; index++) {
    const packet = packets[index];
    bytes += packet.length;
    // Socket-sized pieces; the last one carries the packet's last byte.
    let at = 0;
    while (packet.length - at > SOCKET_CHUNK) {
      connection.receive(packet.subarray(at, at + SOCKET_CHUNK), index);
      at += SOCKET_CHUNK;
    }
    const lastPiece = packet.subarray(at);
    const start = performance.now();
    connection.receive(lastPiece, index);
    verify(decoded.length === index + 1, `frame ${index} was not handed to the decoder`);
    latencies.push(decodedAt - start);
  }
  for (let index = 0; index < frames.length; index++) {
    const expected = index % FPS === 0 ? concat(parameterSets, annexB(frames[index])) : annexB(frames[index]);
    verify(equal(decoded[index], expected), `access unit ${index} differs from the frame sent`);
  }
  // The first second warms the JIT up: the figure is the steady state.
  const steady = latencies.slice(FPS);
  report({
    bench: 'mirror-handoff',
    kernel: nalKernel.name,
    frames: steady.length,
    fps: FPS,
    megabitsPerSecond: Math.round((bytes * 8 * FPS) / FRAMES / 1e5) / 10,
    ...spreadFields('ms', steady, 4),
    ...spreadFields('keyFrameMs', steady.filter((_, i) => (i + FPS) % FPS === 0), 4),
  });
}

/** The bench with the portable kernel and, when built, the WebAssembly one. */
export function runMirrorHandoffBenches(): void {
  runMirrorHandoffBench(portableNalKernel);
  let wasm: NalKernel | undefined;
  try {
    wasm = WasmNalKernel.fromFile();
  } catch (error) {
    report({ bench: 'mirror-handoff', kernel: 'wasm', skipped: `not built: ${(error as Error).message}` });
  }
  if (wasm) runMirrorHandoffBench(wasm);
}
