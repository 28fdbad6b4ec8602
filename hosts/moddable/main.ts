// The receiver on Moddable XS: the configuration from the manifest's `config` (mcconfig's command
// line overrides it), the ports on the SDK's modules, an ECMA-419 listener on the advertised
// port, and the services advertised by mDNS. Logs with `trace`.

// First: the random source and the globals the core's libraries read while they load.
import { hardwareRandom, hostRandom } from './prelude';
import Listener from 'embedded:io/socket/listener';
import TCP from 'embedded:io/socket/tcp';
import UDP from 'embedded:io/socket/udp';
import manifest from 'mc/config';
import type PixelsOut from 'commodetto/PixelsOut';
import Net from 'net';
import Preference from 'preference';
import Time from 'time';
import * as nativeCrypto from '../../modules/native/vp-crypto';
import { createNativeCryptoKernels } from '../../modules/native/kernels';
import * as portableCrypto from './portable-crypto';
import { createNativeNalKernel } from '../../modules/native/nal-kernel';
import { createNativeAlacKernel } from '../../modules/native/alac-kernel';
import * as nativeAlac from '../../modules/native/vp-alac';
import * as nativeAac from '../../modules/native/vp-aac';
import { createNativeAacDecoder } from '../../modules/native/vp-aac-decoder';
import type { AacDecoderFactory } from '../../src/audio/decoder';
import type { CryptoKernels } from '../../src/pairing';
import * as nativeNal from '../../modules/native/vp-nal';
import * as nativeVideo from '../../modules/native/video-decoder/video-decoder';
import type { AudioSink, Connection, Display, Logger, UdpBinder, UdpSocket } from '../../src/platform';
import { freezeConfig, loadOrCreateDeviceId, PROFILES, profileMirrors, profileShowsPictures, Receiver, TimerDriver } from '../../src/receiver';
import { MDNS_GROUP } from '../../src/discovery';
import AudioOut from './audio-out/audio-out';
import { Ecma419AudioSink } from './audio-sink';
import { playTestTone } from './audio-test-tone';
import { MDNS_TTL, startMdnsAdvertiser, type MdnsStart } from './advertiser';
import { boardScreen, PocoDisplay } from './display';
import { hostConfig, type AudioHostConfig, type HostConfig, type VideoHostConfig } from './manifest-config';
import { reportMemory } from './memory';
import { playTestClip } from './mirror-test-clip';
import { moddableClock, traceLogger } from './ports';
import { preferenceStore } from './store';
import { adoptConnection, type TcpCallbacks, type TcpSocket } from './tcp';
import { bindMulticastUdp, ecma419UdpBinder, type Udp419, type Udp419Options } from './udp';
import { startUdpEchoTest } from './udp-echo-test';
import { ModdableVideoDecoder } from './video-decoder';
import { describeError } from '../../src/errors';

/** The simulators' and boards' panels refresh at 60 Hz (ScreenGeometry.refreshRate). */
const SCREEN_REFRESH_SECONDS = 1 / 60;
/** The built-in test clip: one access unit every 40 ms (25 fps), each shown 200 ms after it arrives. */
const TEST_CLIP_FRAME_MS = 40;
const TEST_CLIP_LATENCY_MS = 200;

/**
 * Screen mirroring's ports where the profile intends Screen, a screen exists and the manifest links
 * libavcodec (modules/native/video-decoder: lin): the decoder drawing on the screen, and UDP for
 * the mirroring NTP client. Undefined otherwise, with the reason logged.
 */
function mirroringPorts(profile: HostConfig['config']['profile'], video: VideoHostConfig, screen: PixelsOut | undefined, log: Logger): { videoDecoder: ModdableVideoDecoder; udp: UdpBinder } | undefined {
  if (!profileMirrors(profile)) return undefined;
  if (!screen) {
    log('warn', `profile ${profile} without a screen: no screen mirroring`);
    return undefined;
  }
  if (!nativeVideo.available) {
    log('info', 'no screen mirroring: this platform links no libavcodec (modules/native/video-decoder)');
    return undefined;
  }
  try {
    const videoDecoder = new ModdableVideoDecoder(nativeVideo, screen, { codecs: video.codecs, pending: video.pending, refreshRate: SCREEN_REFRESH_SECONDS, clock: moddableClock, log });
    log('info', `video decoder: libavcodec ${videoDecoder.codecName}, ${videoDecoder.geometry.width}x${videoDecoder.geometry.height} screen, ${video.pending} pictures pending at most`);
    return { videoDecoder, udp: ecma419UdpBinder(makeUdp, log) };
  } catch (error) {
    log('warn', `no screen mirroring: ${describeError(error)}`);
    return undefined;
  }
}

/** The test tone (`audioTestTone`): one second, the format senders stream (44.1 kHz stereo). */
const TEST_TONE = { sampleRate: 44100, channels: 2, seconds: 1 };

/**
 * Realtime audio's ports where the profile intends Audio and the manifest links an output
 * (`embedded:io/audio/out`: lin, esp32): the sink on it, and the streams' UDP sockets at
 * config.audioPort and config.audioControlPort. Undefined otherwise, with the reason logged.
 */
function audioPorts(config: HostConfig['config'], audio: AudioHostConfig, log: Logger): { audioSink: AudioSink; audioSockets?: { data: UdpSocket; control: UdpSocket } } | undefined {
  if (!PROFILES[config.profile].intended.includes('Audio') && !audio.testTone) return undefined;
  if (!audio.output || !AudioOut) {
    log('info', 'no realtime audio: this platform links no audio output (embedded:io/audio/out)');
    return undefined;
  }
  const audioSink = new Ecma419AudioSink({ AudioOut, output: audio.output, outputChannels: audio.outputChannels, queueBytes: audio.queueBytes, clock: moddableClock, log });
  log('info', `audio out: ${audio.output}, ${audio.outputChannels} channel(s), ${audio.queueBytes}-byte queue, latency ${Math.round(audioSink.latencyMs)} ms at 44.1 kHz`);
  try {
    const bind = ecma419UdpBinder(makeUdp, log);
    return { audioSink, audioSockets: { data: bind(config.audioPort), control: bind(config.audioControlPort) } };
  } catch (error) {
    log('warn', `no realtime audio: UDP ports ${config.audioPort}, ${config.audioControlPort}: ${describeError(error)}`);
    return { audioSink };
  }
}

/** Moddable's ECMA-419 UDP socket, as udp.ts takes it. */
function makeUdp(options: Udp419Options): Udp419 {
  return new UDP(options as unknown as ConstructorParameters<typeof UDP>[0]) as unknown as Udp419;
}

/**
 * Senders' sessions: the event listener their event channels connect to, and the timing socket
 * their clocks are kept through (config.eventPort, config.timingPort: fixed ports, said in each
 * SETUP answer). Either failing is logged: the receiver then answers SETUP without it (no clock:
 * 501 for timingProtocol NTP; no listener: the channel cannot open).
 */
function sessionPorts(config: HostConfig['config'], built: { receiver?: Receiver }, log: Logger): UdpSocket | undefined {
  try {
    listen(config.eventPort, built, (to, connection) => to.acceptEvent(connection));
  } catch (error) {
    log('warn', `cannot listen for session events on port ${config.eventPort}: ${describeError(error)}`);
  }
  try {
    return ecma419UdpBinder(makeUdp, log)(config.timingPort);
  } catch (error) {
    log('warn', `no UDP port ${config.timingPort} for the sessions' clocks: ${describeError(error)}; sessions with timingProtocol NTP refused`);
    return undefined;
  }
}

/** The built-in test clip and the UDP echo test, where the manifest asks for them. */
function startTestHooks(video: VideoHostConfig, mirroring: ReturnType<typeof mirroringPorts>, log: Logger): void {
  if (video.testClip) {
    if (mirroring) {
      // Twice, with a reset between: the second pass shows that a stream can start again after one ended.
      const { videoDecoder } = mirroring;
      const clip = { clock: moddableClock, log, frameMs: TEST_CLIP_FRAME_MS, latency: TEST_CLIP_LATENCY_MS };
      playTestClip(videoDecoder, {
        ...clip,
        done: () => {
          videoDecoder.reset();
          playTestClip(videoDecoder, clip);
        },
      });
    } else log('warn', 'mirrorTestClip: no video decoder to play it');
  }
  if (video.udpEchoTest) {
    if (mirroring) startUdpEchoTest(mirroring.udp, log);
    else log('warn', 'udpEchoTest: no screen mirroring ports');
  }
}

function adopt(from: unknown, callbacks: TcpCallbacks): TcpSocket {
  return new TCP({ from: from as TCP, format: 'buffer', nodelay: true, ...callbacks } as ConstructorParameters<typeof TCP>[0]) as unknown as TcpSocket;
}

/** A listener whose connections go to `accept` once the receiver is built (closed before). */
function listen(port: number, built: { receiver?: Receiver }, accept: (receiver: Receiver, connection: Connection) => void): Listener {
  const listener: Listener = new Listener({
    port,
    onReadable(this: Listener, count: number) {
      for (let i = 0; i < count; i++) {
        const from = this.read();
        if (!from) break;
        const connection = adoptConnection(from, adopt, {
          localPort: listener.port,
          localAddress: () => Net.get('IP') ?? '',
          setTimer: moddableClock.setTimer,
          clearTimer: moddableClock.clearTimer,
        });
        if (built.receiver) accept(built.receiver, connection);
        else connection.close();
      }
    },
  });
  return listener;
}

/**
 * The identity, pairing and the channel on the natives (modules/native: libsodium, mbedTLS) where
 * the manifest links them (lin, esp32), on the portable @noble build where it does not: the
 * manifest links exactly one of the two (portable-crypto.ts), so a board never loads
 * @noble/curves. The mirroring stream's NAL kernel in C (modules/native/vp-nal.c: no library,
 * every platform links it); `nalKernel: "portable"` keeps the TypeScript one.
 */
function chooseKernels(log: Logger) {
  const crypto: CryptoKernels = nativeCrypto.available ? createNativeCryptoKernels(nativeCrypto) : portableCrypto.createPortableCryptoKernels();
  log('info', `crypto kernels: ${nativeCrypto.available ? 'native (libsodium, mbedTLS)' : 'portable (@noble): no natives on this platform'}`);
  const nalKernel = manifest.nalKernel === 'portable' ? undefined : createNativeNalKernel(nativeNal);
  log('info', `NAL kernel: ${nalKernel ? 'native (C)' : 'portable (TypeScript), nalKernel "portable"'}`);
  // Realtime audio's ALAC decoder in C (modules/native/vp-alac.c, every platform links it): the
  // portable one decodes 125 packets a second far more slowly in XS.
  const alacKernel = createNativeAlacKernel(nativeAlac);
  // AAC-LC through libavcodec where this build links it (lin: the simulator and Linux media
  // boards); elsewhere AAC streams are refused and not advertised.
  const aacDecoder: AacDecoderFactory | undefined = nativeAac.available ? (config, sampleRate, channels) => createNativeAacDecoder(config, sampleRate, channels, nativeAac) : undefined;
  log('info', `audio decoders: ALAC (C)${aacDecoder ? ', AAC-LC (libavcodec)' : ''}`);
  return { crypto, nalKernel, alacKernel, aacDecoder };
}

function start(): void {
  const store = preferenceStore(Preference);
  const random = hostRandom;

  let host: HostConfig;
  try {
    host = hostConfig(manifest, () => loadOrCreateDeviceId(store, random, (Net as unknown as { get(what: 'MAC'): string | undefined }).get('MAC')));
  } catch (error) {
    trace(`error vendorplay-receiver: ${describeError(error)}\n`);
    return;
  }
  const { config } = host;
  const log: Logger = traceLogger(host.logLevel);
  if (!hardwareRandom) log('warn', 'random bytes come from the simulator\'s unseeded libc rand() mixed with the clock: not for real use');

  const mdns: MdnsStart = host.mdns
    ? startMdnsAdvertiser({
        name: config.name,
        clock: moddableClock,
        random,
        log,
        address: Net.get('IP') ?? undefined,
        bind: () => bindMulticastUdp(makeUdp, log, { address: MDNS_GROUP.ipv4, port: MDNS_GROUP.port, timeToLive: MDNS_TTL }),
      })
    : { reason: 'mdns false' };
  const { advertiser } = mdns;
  // A screen (the simulators, boards with a display) for the profiles that show photos; the
  // Receiver offers Photo, PhotoCaching and Slideshow only with a display.
  let display: Display | undefined;
  const screen = boardScreen();
  if (profileShowsPictures(config.profile)) {
    if (screen) display = new PocoDisplay(screen, log, moddableClock);
    else log('warn', `profile ${config.profile} without a screen: no photos (Photo, PhotoCaching, Slideshow not offered)`);
  }
  let mirroring = mirroringPorts(config.profile, host.video, screen, log);
  startTestHooks(host.video, mirroring, log);
  // Listen first: port 0 picks a free one, and the configuration the receiver is built with is
  // complete (the port it advertises) and frozen.
  const built: { receiver?: Receiver } = {};
  let listener: Listener;
  try {
    listener = listen(config.port, built, (to, connection) => to.accept(connection));
  } catch (error) {
    log('error', `cannot listen on port ${config.port}: ${describeError(error)}`);
    return;
  }
  // Screen mirroring's stream (spec 4.4) on its own port, where the ports for it exist.
  let mirrorPort = config.mirrorPort;
  if (mirroring) {
    try {
      mirrorPort = listen(config.mirrorPort, built, (to, connection) => to.acceptMirror(connection)).port;
    } catch (error) {
      log('warn', `cannot listen for screen mirroring on port ${config.mirrorPort}: ${describeError(error)}; Screen not advertised`);
      // Its decoder and picture ring are not needed without the port.
      mirroring.videoDecoder.close();
      mirroring = undefined;
    }
  }
  const timingSocket = sessionPorts(config, built, log);
  const audio = audioPorts(config, host.audio, log);
  if (audio && host.audio.testTone) playTestTone(audio.audioSink, { ...TEST_TONE, clock: moddableClock, log });
  const { crypto, nalKernel, alacKernel, aacDecoder } = chooseKernels(log);
  const started = Time.ticks;
  const receiver = new Receiver(freezeConfig({ ...config, port: listener.port, mirrorPort }), {
    clock: moddableClock,
    random,
    store,
    log,
    advertiser,
    display,
    crypto,
    nalKernel,
    videoDecoder: mirroring?.videoDecoder,
    udp: mirroring?.udp,
    timingSocket,
    alacKernel,
    aacDecoder,
    audioSink: audio?.audioSink,
    audioSockets: audio?.audioSockets,
  });
  built.receiver = receiver;
  log('debug', `receiver made in ${Time.ticks - started} ms (identity and its public key)`);
  // One timer for the features' deadlines (slideshow, video, the PIN); connections have their own.
  new TimerDriver(receiver, moddableClock);
  log('info', `listening on port ${receiver.config.port} (HTTP and RTSP), ${receiver.config.eventPort} (session events); sessions keep time on UDP port ${receiver.config.timingPort}; profile ${config.profile}, dialect ${config.dialect}, device id ${config.deviceId}`);
  receiver.start();
  for (const service of receiver.services()) {
    const txt = service.txt.map(([key, value]) => `${key}=${value}`).join(' ');
    // The responder says "advertising" once a service is announced; here what it publishes, or why not.
    if (advertiser) log('debug', `mdns: publishing "${service.name}" ${service.type} port ${service.port}: ${txt}`);
    else log('info', `not advertising "${service.name}" ${service.type} port ${service.port} (${mdns.reason}): ${txt}`);
  }
  // A simulator build given a board's XS sizes (scripts/moddable-build.mjs --board-sizes).
  if (manifest.boardSizes !== undefined) log('info', `XS heaps at the creation sizes of ${String(manifest.boardSizes)}, no growth`);
  const seconds = Number(manifest.memoryReportSeconds ?? 0);
  if (seconds > 0) reportMemory(seconds, log, () => `${receiver.connectionCount} connection(s)`);
}

start();
