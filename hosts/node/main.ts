// `vendorplay-receiver`: the desktop simulator host. Reads the command line (command-line.ts),
// builds the ports on Node, opens the listeners, starts the receiver, advertises it, and shuts
// down cleanly on a signal. Start-up is a row of steps; a step that cannot go on throws a
// StartFailure, said in one line, and what the earlier steps opened is closed again.

import { networkInterfaces } from 'node:os';
import type dgram from 'node:dgram';
import type net from 'node:net';
import type { Logger, UdpBinder, UdpSocket, VideoDecoder } from '../../src/platform';
import { ConfigError, freezeConfig, SECRET_KEY_RECORDS, profileMirrors, profilePlaysVideo, profileShowsPictures, Receiver, TimerDriver } from '../../src/receiver';
import { openAudioOut, type AudioOut } from './audio/audio-out';
import { parseCommandLine, type CommandLine } from './command-line';
import { AlacKernelChosenOnFirstUse, selectAlacKernel } from './kernels/alac-kernel';
import { cryptoOnFirstUse } from './crypto-on-first-use';
import { NalKernelChosenOnFirstUse, selectNalKernel } from './kernels/nal-kernel';
import type { MdnsAdvertiser } from './mdns/advertiser';
import { runPairingsCommand } from './pairings-command';
import { consoleLogger, fileStore, fsCause, nodeAllocateBytes, nodeFreeBytes, nodeClock, nodeRandom, recordsOthersCanRead, startupPrinter, StoreFileError } from './io/ports';
import { VirtualScreen } from './screen/display';
import { PageDecoder } from './screen/page-decoder';
import { PagePlayer } from './screen/player';
import { MediaDestinations } from './screen/media-destinations';
import { startScreenServer, type ScreenServer } from './screen/server';
import { StreamRecorder } from './recorder';
import { EventHooks } from './event-hooks';
import { listen } from './io/tcp';
import { bindUdp, sharedUdpBinder } from './io/udp';

/** Prints one start-up line (stdout, in the log's shape: io/ports.ts startupPrinter). */
type Say = (message: string) => void;

/** Start-up cannot go on: one line for the person (stderr) and the command's exit status. */
class StartFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** What start-up has opened so far, closed together when it stops half-way or on a signal. */
class Opened {
  advertiser: MdnsAdvertiser | undefined;
  screenServer: ScreenServer | undefined;
  readonly servers: net.Server[] = [];
  readonly udpSockets: dgram.Socket[] = [];
  /** Set once built; connections that arrive before that (a moment) are closed. */
  receiver: Receiver | undefined;
  /** --on-event hooks: those still running are killed when the receiver stops. */
  hooks: EventHooks | undefined;

  /** Goodbye packets first, then the screen, the UDP sockets and the listeners (once closed). */
  async closeAll(): Promise<void> {
    this.hooks?.stop();
    await this.advertiser?.shutdown();
    await this.screenServer?.close();
    for (const socket of this.udpSockets) socket.close();
    await Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** The addresses to listen on: every address of the named interfaces, or all when none is named. */
function listenAddresses(interfaces: string[]): (string | undefined)[] {
  if (interfaces.length === 0) return [undefined];
  const known = networkInterfaces();
  return interfaces.flatMap((name) =>
    (known[name] ?? []).map((info) => (info.family === 'IPv6' && info.scopeid ? `${info.address}%${name}` : info.address)),
  );
}

/**
 * The addresses a person gives a sender tool, for the idle screen: the listened-on interfaces'
 * (or every interface's) IPv4 addresses, the machine's own before loopback; IPv6 where there is no IPv4.
 */
function reachableAddresses(interfaces: string[]): string[] {
  const known = Object.entries(networkInterfaces()).filter(([name]) => interfaces.length === 0 || interfaces.includes(name));
  const all = known.flatMap(([, infos]) => infos ?? []);
  const own = all.filter((info) => !info.internal);
  const candidates = own.length > 0 ? own : all;
  const ipv4 = candidates.filter((info) => info.family === 'IPv4');
  return (ipv4.length > 0 ? ipv4 : candidates).slice(0, 3).map((info) => (info.family === 'IPv6' ? `[${info.address}]` : info.address));
}

/** `[::1]:7000` or `127.0.0.1:7000`, as the listening lines say it. */
function boundAt(server: net.Server): { text: string; port: number } {
  const bound = server.address() as net.AddressInfo;
  return { text: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`, port: bound.port };
}

/** Why a port could not be taken, in the person's words. */
function portProblem(error: unknown): string {
  return (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'the port is in use by another program' : (error as Error).message;
}

/** A data directory that fails at start (a record unreadable, a full disk): one line, exit 1. */
function storageFailure(error: StoreFileError): StartFailure {
  return new StartFailure(`${error.message}; fix it or choose another data directory with --data-dir DIR`, 1);
}

/**
 * The screen first: a receiver that advertises photos must be able to show them. A taken
 * --screen-port stops start-up (rather than advertising photo features nobody can see, or
 * silently dropping them): the person picks another port, 0, or --no-screen.
 */
async function startScreen(commandLine: CommandLine, display: VirtualScreen, player: PagePlayer | undefined, mirror: PageDecoder | undefined, log: Logger): Promise<ScreenServer> {
  try {
    return await startScreenServer({ screen: display, player, port: commandLine.screenPort, log, mirror });
  } catch (error) {
    throw new StartFailure(`--screen-port ${commandLine.screenPort}: ${portProblem(error)}; choose another port (0 picks a free one) or --no-screen`, 1);
  }
}

/**
 * mirroring's NTP client socket, on the named interfaces' first IPv4 address (--interface lo:
 * loopback only), else all. A taken --ntp-port stops start-up.
 */
async function bindNtp(commandLine: CommandLine, opened: Opened, log: Logger): Promise<{ udp: UdpBinder; ntpPort: number }> {
  const { config } = commandLine;
  try {
    const ntpAddress = listenAddresses(commandLine.interfaces).find((address) => address !== undefined && !address.includes(':'));
    const socket = await bindUdp(config.ntpPort, ntpAddress);
    opened.udpSockets.push(socket);
    return { udp: sharedUdpBinder(socket, log), ntpPort: socket.address().port };
  } catch (error) {
    throw new StartFailure(`--ntp-port ${config.ntpPort}: ${portProblem(error)}; choose another port (0 picks a free one)`, 1);
  }
}

/**
 * Screen mirroring (spec 4.4) on its own listener, on the same addresses (the first may pick a
 * free port). Bound before anything else listens, and a port another program holds stops
 * start-up (as --screen-port and --ntp-port do): the receiver advertises mirroring (feature bit
 * 7) only where it serves it, and senders that find bit 7 connect to this port. Returns the
 * listening lines, printed once the receiver runs.
 */
async function listenForMirroring(commandLine: CommandLine, opened: Opened, what: string, log: Logger): Promise<string[]> {
  const lines: string[] = [];
  let mirrorPort = commandLine.config.mirrorPort;
  for (const address of listenAddresses(commandLine.interfaces)) {
    let server: net.Server;
    try {
      server = await listen(mirrorPort, address, (connection) => (opened.receiver ? opened.receiver.acceptMirror(connection) : connection.close()));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new StartFailure(`--mirror-port ${mirrorPort}: the port is in use by another program; choose another port (0 picks a free one)`, 1);
      }
      // As for the HTTP port: an address unusable for a while is skipped, the others served.
      log('warn', `cannot listen for screen mirroring on ${address ?? 'all addresses'} port ${mirrorPort}: ${(error as Error).message}`);
      continue;
    }
    const bound = boundAt(server);
    mirrorPort = bound.port;
    opened.servers.push(server);
    lines.push(`listening on ${bound.text} (screen mirroring; ${what})`);
  }
  if (lines.length === 0) {
    throw new StartFailure(`--mirror-port ${commandLine.config.mirrorPort}: no address to listen on for screen mirroring (see the warnings above)`, 1);
  }
  return lines;
}

/**
 * The sessions' event listener (senders open their event channel to it after SETUP) on the same
 * addresses, and the sessions' timing socket (RAOP timing, IPv4 like mirroring's NTP). Either
 * may pick a free port (the default: each SETUP answer names them); a port another program
 * holds stops start-up. Returns the ports and the listening lines.
 */
async function openSessionPorts(commandLine: CommandLine, opened: Opened, log: Logger): Promise<{ eventPort: number; timingPort: number; timingSocket: UdpSocket; lines: string[] }> {
  const { config } = commandLine;
  const lines: string[] = [];
  let eventPort = config.eventPort;
  for (const address of listenAddresses(commandLine.interfaces)) {
    let server: net.Server;
    try {
      server = await listen(eventPort, address, (connection) => (opened.receiver ? opened.receiver.acceptEvent(connection) : connection.close()));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new StartFailure(`--event-port ${eventPort}: ${portProblem(error)}; choose another port (0 picks a free one)`, 1);
      log('warn', `cannot listen for session events on ${address ?? 'all addresses'} port ${eventPort}: ${(error as Error).message}`);
      continue;
    }
    const bound = boundAt(server);
    eventPort = bound.port;
    opened.servers.push(server);
    lines.push(`listening on ${bound.text} (session events)`);
  }
  if (lines.length === 0) throw new StartFailure(`--event-port ${config.eventPort}: no address to listen on for session events (see the warnings above)`, 1);
  let socket: dgram.Socket;
  try {
    const timingAddress = listenAddresses(commandLine.interfaces).find((address) => address !== undefined && !address.includes(':'));
    socket = await bindUdp(config.timingPort, timingAddress);
  } catch (error) {
    throw new StartFailure(`--timing-port ${config.timingPort}: ${portProblem(error)}; choose another port (0 picks a free one)`, 1);
  }
  opened.udpSockets.push(socket);
  const timingPort = socket.address().port;
  lines.push(`sessions keep time on UDP port ${timingPort}`);
  return { eventPort, timingPort, timingSocket: sharedUdpBinder(socket, log)(0), lines };
}

/**
 * Realtime audio's two UDP sockets (RTP audio; sync, resent packets and retransmit requests), on
 * the same IPv4 address as the timing socket; free ports by default (each audio SETUP answer
 * names them). A port another program holds stops start-up.
 */
async function bindAudioSockets(commandLine: CommandLine, opened: Opened, log: Logger): Promise<{ data: UdpSocket; control: UdpSocket }> {
  const { config } = commandLine;
  const address = listenAddresses(commandLine.interfaces).find((candidate) => candidate !== undefined && !candidate.includes(':'));
  const bind = async (port: number, flag: string) => {
    try {
      const socket = await bindUdp(port, address);
      opened.udpSockets.push(socket);
      return sharedUdpBinder(socket, log)(0);
    } catch (error) {
      throw new StartFailure(`--${flag} ${port}: ${portProblem(error)}; choose another port (0 picks a free one)`, 1);
    }
  };
  return { data: await bind(config.audioPort, 'audio-port'), control: await bind(config.audioControlPort, 'audio-control-port') };
}

/**
 * The HTTP and RTSP listeners. The first may pick a free port (--port 0); the others take the
 * same one. An address can be unusable for a while (an IPv6 address still tentative just after
 * the link came up): the others are served rather than none. Returns the port.
 */
async function listenForSenders(commandLine: CommandLine, opened: Opened, log: Logger, say: Say): Promise<number> {
  let port = commandLine.config.port;
  let listening = 0;
  for (const address of listenAddresses(commandLine.interfaces)) {
    let server: net.Server;
    try {
      server = await listen(port, address, (connection) => (opened.receiver ? opened.receiver.accept(connection) : connection.close()));
    } catch (error) {
      log('warn', `cannot listen on ${address ?? 'all addresses'} port ${port}: ${(error as Error).message}`);
      continue;
    }
    const bound = boundAt(server);
    port = bound.port;
    opened.servers.push(server);
    listening++;
    say(`listening on ${bound.text} (HTTP and RTSP)`);
  }
  if (listening === 0) throw new StartFailure(`--port ${commandLine.config.port}: no address to listen on (see the warnings above); is the port in use?`, 1);
  return port;
}

/** The advertiser --mdns asks for; --mdns avahi without avahi-daemon stops start-up. */
async function chooseMdnsAdvertiser(commandLine: CommandLine, log: Logger): Promise<MdnsAdvertiser> {
  const { AvahiUnavailable, chooseAdvertiser } = await import('./mdns/choose-advertiser');
  try {
    return await chooseAdvertiser(commandLine.mdnsMode, { name: commandLine.config.name, interfaces: commandLine.interfaces, log, unicast: commandLine.mdnsUnicast });
  } catch (error) {
    if (error instanceof AvahiUnavailable) throw new StartFailure(error.message, 1);
    throw error;
  }
}

/** The ports on Node and the listeners; then the receiver, started and said on stdout. */
async function start(commandLine: CommandLine, opened: Opened, log: Logger, say: Say): Promise<{ receiver: Receiver; recorder: StreamRecorder | undefined; readyLines: string[] }> {
  const { config, dataDir } = commandLine;
  // The WebAssembly kernels are chosen (loaded, self-tested, said in the log) when a feature
  // first needs them, not at start: the channel's frame kernel at the first sealed frame (after
  // pair-verify), the ALAC kernel at the first ALAC packet, the NAL kernel (also timed) at the
  // first mirrored frame; @noble/curves at the first pairing (crypto-on-first-use.ts). A start
  // that serves /info pays for none of them.
  const crypto = cryptoOnFirstUse(log);
  const nalKernel = new NalKernelChosenOnFirstUse(() => selectNalKernel(log).kernel);
  // Loaded only when used: --no-mdns never touches the multicast stack nor the system bus.
  // --mdns auto: through avahi-daemon when it runs (it owns port 5353), else our own responder.
  const advertiser = commandLine.mdns ? await chooseMdnsAdvertiser(commandLine, log) : undefined;
  opened.advertiser = advertiser;
  // The display is the virtual screen (a web page); --no-screen: none at all. Video plays in the
  // same page, for profiles that play video (photo-frame and speaker do not). Screen mirroring is
  // decoded and shown by the page (WebCodecs) where the profile offers it: the receiver's
  // VideoDecoder port (the one wiring point for the mirroring listener).
  // A speaker has no screen (its profile shows no pictures): no page, and no screen URL printed.
  const display = commandLine.screen && profileShowsPictures(config.profile) ? new VirtualScreen(config.name, log) : undefined;
  const player = display && profilePlaysVideo(config.profile) ? new PagePlayer({ log, mediaLimits: config.limits, destinations: new MediaDestinations(commandLine.mediaDestinations) }) : undefined;
  const screenDecoder =
    display && profileMirrors(config.profile)
      ? new PageDecoder({ geometry: commandLine.mirrorGeometry, now: () => nodeClock.now(), log, maxQueueBytes: config.limits.mirrorDisplayQueueBytes })
      : undefined;
  if (display) opened.screenServer = await startScreen(commandLine, display, player, screenDecoder, log);
  // Screen mirroring needs a decoder and UDP for NTP: the page's decoder, wrapped by --record's
  // writer when asked; without any decoder the receiver does not offer mirroring.
  let videoDecoder: VideoDecoder | undefined = screenDecoder;
  let recorder: StreamRecorder | undefined;
  if (commandLine.record !== undefined) {
    try {
      recorder = new StreamRecorder(commandLine.record, log, screenDecoder);
    } catch (error) {
      throw new StartFailure(`--record ${commandLine.record}: ${fsCause(error)}`, 1);
    }
    videoDecoder = recorder;
  }
  let udp: UdpBinder | undefined;
  let ntpPort = config.ntpPort;
  let mirrorLines: string[] = [];
  if (videoDecoder && profileMirrors(config.profile)) {
    ({ udp, ntpPort } = await bindNtp(commandLine, opened, log));
    const what = `NTP client on UDP port ${ntpPort}${recorder ? `, recording to ${recorder.file}` : ''}`;
    mirrorLines = await listenForMirroring(commandLine, opened, what, log);
  }
  // Realtime audio: the system's sound, a WAV file, both or none (audio/audio-out.ts says why
  // sound is on by default). The WAV file's header is current after every write: nothing to close.
  let audio: AudioOut;
  try {
    audio = openAudioOut({ device: commandLine.audioOut, recordFile: commandLine.recordAudio, log, now: () => nodeClock.now() });
  } catch (error) {
    throw new StartFailure(`--record-audio ${commandLine.recordAudio}: ${fsCause(error)}`, 1);
  }
  const audioSink = audio.sink;
  const sessionPorts = await openSessionPorts(commandLine, opened, log);
  const audioSockets = audioSink ? await bindAudioSockets(commandLine, opened, log) : undefined;
  const alacKernel = audioSink ? new AlacKernelChosenOnFirstUse(() => selectAlacKernel(log)) : undefined;
  const port = await listenForSenders(commandLine, opened, log, say);
  // The configuration is complete (the ports it got) and frozen before the receiver exists.
  const frozen = freezeConfig({
    ...config,
    port,
    ntpPort,
    eventPort: sessionPorts.eventPort,
    timingPort: sessionPorts.timingPort,
    ...(audioSockets && { audioPort: audioSockets.data.localPort, audioControlPort: audioSockets.control.localPort }),
  });
  const hooks = (opened.hooks = commandLine.onEvent === undefined ? undefined : new EventHooks({ command: commandLine.onEvent, receiverName: frozen.name, log, ...commandLine.onEventLimits }));
  try {
    opened.receiver = new Receiver(frozen, { clock: nodeClock, random: nodeRandom, allocateBytes: nodeAllocateBytes, freeBytes: nodeFreeBytes, store: fileStore(dataDir), log, advertiser, display, player, crypto, videoDecoder, udp, nalKernel, timingSocket: sessionPorts.timingSocket, audioSink, audioSockets, alacKernel, ...(hooks && { onEvent: (event) => hooks.run(event) }) });
  } catch (error) {
    // A device key or certificate that cannot be read is a configuration error, found at start;
    // a data directory whose records cannot be read or written is said in one line too.
    if (error instanceof StoreFileError) throw storageFailure(error);
    if (error instanceof ConfigError) throw new StartFailure(error.message, 2);
    throw error;
  }
  const receiver = opened.receiver;
  // The idle screen says how to connect: the name to choose, where a sender tool finds it, and a PIN to come.
  display?.showConnection({ addresses: reachableAddresses(commandLine.interfaces), port, pairing: frozen.password ? 'password' : frozen.pinRequired ? 'pin' : 'none' });
  // The screen's reset of the wrong-PIN count (a person at the receiver, after a lock-out).
  if (display) display.onResetPairingTries = () => receiver.pairing.setup.resetTries();
  // One timer for the features' deadlines (slideshow, video, the PIN); connections have their own.
  new TimerDriver(receiver, nodeClock);
  for (const line of [...mirrorLines, ...sessionPorts.lines]) say(line);
  const { screenServer } = opened;
  if (screenServer) say(`screen on ${screenServer.urls.join(' and ')} (virtual screen page)`);
  if (screenServer && player) say(`video plays in the screen page: open ${screenServer.urls[0]} in a browser to watch it`);
  say(audio.line);
  receiver.start();
  // The last start-up lines say the receiver is ready: main prints them once a signal stops it
  // cleanly (a service manager or a test may send SIGTERM the moment it reads them).
  const readyLines = [`profile ${config.profile}, dialect ${config.dialect}, device id ${config.deviceId}, data in ${dataDir}`];
  for (const service of receiver.services()) {
    const txt = service.txt.map(([key, value]) => `${key}=${value}`).join(' ');
    readyLines.push(`${commandLine.mdns ? 'advertising' : 'not advertising (--no-mdns)'} "${service.name}" ${service.type} port ${service.port}: ${txt}`);
  }
  return { receiver, recorder, readyLines };
}

/** SIGINT and SIGTERM stop the receiver: goodbye packets, connections closed, exit 0. */
function stopOnSignals(receiver: Receiver, recorder: StreamRecorder | undefined, opened: Opened, log: Logger): void {
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: stopping (goodbye packets, closing connections)`);
    receiver.stop();
    recorder?.closeFile();
    await opened.closeAll();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** The command line, read; undefined when the command is done (--help) or failed (said). */
function readCommandLine(): CommandLine | undefined {
  try {
    return parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (error instanceof StoreFileError) return void fail(storageFailure(error));
    if (!(error instanceof ConfigError)) throw error;
    // One line a person can act on; the whole help is one --help away.
    return void fail(new StartFailure(`${error.message} (see --help)`, 2));
  }
}

function fail(failure: StartFailure): void {
  process.stderr.write(`vendorplay-receiver: ${failure.message}\n`);
  process.exitCode = failure.exitCode;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'pairings') {
    process.exitCode = runPairingsCommand(process.argv.slice(3));
    return;
  }
  const commandLine = readCommandLine();
  if (!commandLine) return;
  const log = consoleLogger(commandLine.logLevel, commandLine.logFormat);
  log('info', commandLine.configNote);
  const say = startupPrinter(commandLine.logLevel, commandLine.logFormat);
  for (const { file, mode } of recordsOthersCanRead(commandLine.dataDir, SECRET_KEY_RECORDS)) {
    log('warn', `${file} holds the receiver's secret key and other users can read it (mode ${mode.toString(8).padStart(4, '0')}); make it yours alone: chmod 600 ${file}`);
  }
  const opened = new Opened();
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(commandLine, opened, log, say);
  } catch (error) {
    if (!(error instanceof StartFailure)) throw error;
    fail(error);
    await opened.closeAll();
    return;
  }
  const { receiver, recorder, readyLines } = started;
  if (commandLine.activitySignal) {
    // For tests: SIGUSR2 toggles the activity idle <-> receiving video.
    process.on('SIGUSR2', () => receiver.setActivity(receiver.activity === 'idle' ? 'receivingVideo' : 'idle'));
  }
  stopOnSignals(receiver, recorder, opened, log);
  for (const line of readyLines) say(line);
}

// Not awaited at the top: the build runs this module as CommonJS (scripts/build.mjs: for V8's code
// cache), which has none. A failure still ends the command with its stack, as an unhandled rejection.
void main();
