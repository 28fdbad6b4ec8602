// `vendorplay-receiver`: the desktop simulator host. Parses the command line, builds the ports on
// Node, starts the receiver and its listeners, advertises it, and shuts down cleanly on a signal.

import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import type dgram from 'node:dgram';
import type net from 'node:net';
import { parseArgs } from 'node:util';
import { isDialectName } from '../../src/dialect';
import { RECEIVER_NAME_MAX, receiverNameProblem } from '../../src/discovery/dnssd-names';
import { CONTROL_PORT } from '../../src/discovery/services';
import { NTP_RECEIVER_PORT } from '../../src/mirror/ntp';
import { MIRROR_PORT } from '../../src/mirror/stream-request';
import { readCertificateDer } from '../../src/pairing/der';
import type { LogLevel, ScreenGeometry } from '../../src/platform';
import { LOG_LEVELS } from '../../src/platform';
import { ConfigError, DEFAULT_LIMITS, freezeConfig, makeConfig, type ReceiverConfig, type ReceiverLimits } from '../../src/receiver/config';
import { loadOrCreateDeviceId, SECRET_KEY_RECORDS } from '../../src/receiver/identity';
import { isProfileName, profileMirrors, profilePlaysVideo, PROFILES } from '../../src/receiver/profiles';
import { Receiver } from '../../src/receiver/receiver';
import { selectFrameKernel } from './kernels/kernels';
import { NalKernelChosenOnFirstUse, selectNalKernel } from './kernels/nal-kernel';
import { runPairingsCommand } from './pairings-command';
import { consoleLogger, defaultDataDir, fileStore, fsCause, makeDataDir, nodeClock, nodeRandom, recordsOthersCanRead, StoreFileError } from './io/ports';
import { VirtualScreen } from './screen/display';
import { DEFAULT_MIRROR_GEOMETRY, PageDecoder, parseMirrorSize } from './screen/page-decoder';
import { PagePlayer } from './screen/player';
import { startScreenServer, type ScreenServer } from './screen/server';
import { StreamRecorder } from './recorder';
import { listen } from './io/tcp';
import { bindUdp, sharedUdpBinder } from './io/udp';
import type { UdpBinder, VideoDecoder } from '../../src/platform';

const HELP = `Usage: vendorplay-receiver [options]
       vendorplay-receiver pairings list|remove ID|clear [--data-dir DIR]

A receiver for the wireless media protocol, on this computer. The second form lists or removes
the paired senders kept in the data directory (the receiver need not run).

Options:
  --name NAME            name shown to senders, at most ${RECEIVER_NAME_MAX} bytes of UTF-8 (default: "Receiver")
  --port PORT            HTTP/RTSP port that is advertised (default: 7000; 0 picks a free one)
  --mirror-port PORT     screen mirroring port (default: 7100; 0 picks a free one); served when
                         the receiver mirrors: a profile with mirroring and the screen page
                         (which decodes it), or --record FILE; start-up stops if it is taken
  --ntp-port PORT        local UDP port of mirroring's NTP client (default: 7011; 0 picks a free one)
  --record FILE          write mirrored video to FILE as an H.264 Annex B stream (ffmpeg reads it
                         with -f h264), as well as showing it; offers screen mirroring (feature
                         bit 7) even with --no-screen
  --interface NAME       network interface to listen and advertise on (repeatable; default: all;
                         mDNS also answers on loopback)
  --no-mdns              do not advertise by multicast DNS
  --no-mdns-unicast      do not answer DNS queries sent straight to this host's port 5353 (an
                         avahi on the same host answers them for its own services otherwise)
  --screen-port PORT     virtual screen web page port, on 127.0.0.1 and ::1 only (default: 7080;
                         0 picks a free one); start-up stops if it is taken
  --no-screen            no virtual screen: a receiver without a display (no photos)
  --mirror-size WxH@HZ   the display screen mirroring is sent for (default: 1920x1080@60); the
                         screen page decodes it with WebCodecs (H.264) and scales it to the window
  --profile NAME         ${Object.values(PROFILES).map((profile) => profile.name).join(', ')} (default: desktop)
  --dialect NAME         vendor (the spec's names) or apple (real senders' names) (default: vendor)
  --device-id MAC        device identifier (default: a random one, kept in the data directory)
  --data-dir DIR         where the receiver keeps its identity and pairings
                         (default: ~/.local/share/vendorplay-receiver)
  --pin DIGITS           pairing PIN (default: 3939)
  --pin-required         senders must pair with the PIN before anything else (flag PINRequired)
  --password TEXT        password senders must give (default: none); senders pair with it
  --auth-key FILE        device RSA-1024 private key (PEM) for certificate authentication in
                         pair-setup and POST /auth-setup; needs --auth-certificate
  --auth-certificate FILE  the device certificate (DER or PEM) that goes with --auth-key
  --log-level LEVEL      error, warn, info or debug (default: info)
  --limit NAME=VALUE     set a limit (repeatable): ${Object.entries(DEFAULT_LIMITS).map(([name, value]) => `${name} (${value})`).join(', ')}
                         (defaults of boards: ${Object.values(PROFILES).filter((profile) => profile.limits).map((profile) => `${profile.name} ${Object.entries(profile.limits ?? {}).map(([name, value]) => `${name}=${value}`).join(' ')}`).join('; ')})
  --activity-signal      for tests: SIGUSR2 toggles the activity idle <-> receiving video
  -h, --help             show this help
`;

interface CommandLine {
  config: ReceiverConfig;
  interfaces: string[];
  mdns: boolean;
  mdnsUnicast: boolean;
  dataDir: string;
  logLevel: LogLevel;
  activitySignal: boolean;
  screenPort: number;
  screen: boolean;
  mirrorGeometry: ScreenGeometry;
  /** --record FILE: mirrored video written there. */
  record: string | undefined;
}

function parsePort(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`--${name} ${JSON.stringify(text)} is not a port number (0 to 65535)`);
  return port;
}

/**
 * node:util parseArgs errors in one short line: `unknown option --bogus` rather than its advice
 * about positionals; anything else keeps its first sentence.
 */
function usageMessage(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `unknown option ${quoted}`;
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted) return `unexpected argument "${quoted}"`;
  return error.message.split(/\.\s/)[0];
}

/**
 * The data directory, made if missing and checked by writing a file there, so that a directory
 * the receiver cannot keep its identity in is said at start, naming it and why.
 */
function checkDataDir(dir: string): void {
  const fail = (error: unknown): never => {
    throw new ConfigError(`data directory ${dir} cannot be used: ${fsCause(error)}; choose another with --data-dir DIR`);
  };
  try {
    makeDataDir(dir);
  } catch (error) {
    fail(error);
  }
  try {
    if (!statSync(dir).isDirectory()) fail(Object.assign(new Error('not a directory'), { code: 'EEXIST' }));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    fail(error);
  }
  const probe = path.join(dir, `.write-check.${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    fail(error);
  }
}

function parseCommandLine(argv: string[]): CommandLine | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowNegative: false,
      options: {
        name: { type: 'string' },
        port: { type: 'string' },
        'mirror-port': { type: 'string' },
        'ntp-port': { type: 'string' },
        record: { type: 'string' },
        interface: { type: 'string', multiple: true },
        'no-mdns': { type: 'boolean' },
        'no-mdns-unicast': { type: 'boolean' },
        'screen-port': { type: 'string' },
        'no-screen': { type: 'boolean' },
        'mirror-size': { type: 'string' },
        profile: { type: 'string' },
        dialect: { type: 'string' },
        'device-id': { type: 'string' },
        'data-dir': { type: 'string' },
        pin: { type: 'string' },
        'pin-required': { type: 'boolean' },
        password: { type: 'string' },
        'auth-key': { type: 'string' },
        'auth-certificate': { type: 'string' },
        'log-level': { type: 'string' },
        limit: { type: 'string', multiple: true },
        'activity-signal': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ConfigError(usageMessage(error as Error));
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level ${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  if (values.profile !== undefined && !isProfileName(values.profile)) throw new ConfigError(`--profile ${JSON.stringify(values.profile)} is not one of ${Object.keys(PROFILES).join(', ')}`);
  if (values.dialect !== undefined && !isDialectName(values.dialect)) throw new ConfigError(`--dialect ${JSON.stringify(values.dialect)} is not vendor or apple`);
  // Before the data directory is touched: a name discovery cannot publish is refused here, in
  // one line, rather than by a stack trace once the receiver starts advertising.
  const nameProblem = values.name === undefined ? undefined : receiverNameProblem(values.name);
  if (nameProblem) throw new ConfigError(`--name ${nameProblem}`);
  const mirrorGeometry = values['mirror-size'] === undefined ? DEFAULT_MIRROR_GEOMETRY : parseMirrorSize(values['mirror-size']);
  if (!mirrorGeometry) throw new ConfigError(`--mirror-size ${JSON.stringify(values['mirror-size'])} is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60)`);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  checkDataDir(dataDir);
  const interfaces = values.interface ?? [];
  const known = networkInterfaces();
  for (const name of interfaces) if (!known[name]) throw new ConfigError(`--interface ${name}: no such interface (have: ${Object.keys(known).join(', ')})`);
  const config = makeConfig({
    ...(values.name !== undefined && { name: values.name }),
    ...(values.profile !== undefined && { profile: values.profile as ReceiverConfig['profile'] }),
    ...(values.dialect !== undefined && { dialect: values.dialect as ReceiverConfig['dialect'] }),
    ...(values.pin !== undefined && { pin: values.pin }),
    ...(values.password !== undefined && { password: values.password }),
    ...(values['pin-required'] && { pinRequired: true }),
    ...readAuthFiles(values['auth-key'], values['auth-certificate']),
    deviceId: values['device-id'] ?? loadOrCreateDeviceId(fileStore(dataDir), nodeRandom),
    port: parsePort('port', values.port, CONTROL_PORT),
    mirrorPort: parsePort('mirror-port', values['mirror-port'], MIRROR_PORT),
    ntpPort: parsePort('ntp-port', values['ntp-port'], NTP_RECEIVER_PORT),
    limits: parseLimits(values.limit ?? []),
  });
  return {
    config,
    interfaces,
    mdns: !values['no-mdns'],
    mdnsUnicast: !values['no-mdns-unicast'],
    dataDir,
    logLevel,
    activitySignal: values['activity-signal'] === true,
    screenPort: parsePort('screen-port', values['screen-port'], 7080),
    screen: !values['no-screen'],
    mirrorGeometry,
    record: values.record,
  };
}

/**
 * The device key (PEM text) and certificate (DER bytes; PEM is decoded) named by --auth-key and
 * --auth-certificate. The core checks the key itself when the receiver starts.
 */
function readAuthFiles(keyFile: string | undefined, certificateFile: string | undefined): Pick<ReceiverConfig, 'authKey' | 'authCertificate'> {
  if (keyFile === undefined && certificateFile === undefined) return {};
  if (keyFile === undefined || certificateFile === undefined) throw new ConfigError('--auth-key and --auth-certificate go together');
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError(`--${flag} ${file}: ${(error as Error).message}`);
    }
  };
  const certificate = read('auth-certificate', certificateFile);
  const text = certificate.toString('latin1');
  let der: Uint8Array;
  try {
    der = text.includes('-----BEGIN ') ? readCertificateDer(text) : readCertificateDer(new Uint8Array(certificate));
  } catch (error) {
    throw new ConfigError(`--auth-certificate ${certificateFile}: ${(error as Error).message}`);
  }
  return { authKey: read('auth-key', keyFile).toString('utf8'), authCertificate: der };
}

/** `--limit maxConnections=32` pairs; names and values are checked against DEFAULT_LIMITS. */
function parseLimits(settings: string[]): Partial<ReceiverLimits> {
  const limits: Partial<ReceiverLimits> = {};
  for (const setting of settings) {
    const [name, text] = setting.split('=');
    if (!Object.prototype.hasOwnProperty.call(DEFAULT_LIMITS, name)) {
      throw new ConfigError(`--limit ${setting}: unknown limit "${name}" (known: ${Object.keys(DEFAULT_LIMITS).join(', ')})`);
    }
    if (!/^\d+$/.test(text ?? '')) throw new ConfigError(`--limit ${setting}: value must be a positive integer`);
    limits[name as keyof ReceiverLimits] = Number(text);
  }
  return limits;
}

/** The addresses to listen on: every address of the named interfaces, or all when none is named. */
function listenAddresses(interfaces: string[]): (string | undefined)[] {
  if (interfaces.length === 0) return [undefined];
  const known = networkInterfaces();
  return interfaces.flatMap((name) =>
    (known[name] ?? []).map((info) => (info.family === 'IPv6' && info.scopeid ? `${info.address}%${name}` : info.address)),
  );
}

/** A data directory that fails at start (a record unreadable, a full disk): one line, exit 1. */
function storageFailed(error: StoreFileError): void {
  process.stderr.write(`vendorplay-receiver: ${error.message}; fix it or choose another data directory with --data-dir DIR\n`);
  process.exitCode = 1;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'pairings') {
    process.exitCode = runPairingsCommand(process.argv.slice(3));
    return;
  }
  let commandLine: CommandLine | undefined;
  try {
    commandLine = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (error instanceof StoreFileError) return storageFailed(error);
    if (!(error instanceof ConfigError)) throw error;
    // One line a person can act on; the whole help is one --help away.
    process.stderr.write(`vendorplay-receiver: ${error.message} (see --help)\n`);
    process.exitCode = 2;
    return;
  }
  if (!commandLine) return;
  const { config, interfaces, mdns, dataDir, logLevel } = commandLine;
  const log = consoleLogger(logLevel);
  for (const { file, mode } of recordsOthersCanRead(dataDir, SECRET_KEY_RECORDS)) {
    log('warn', `${file} holds the receiver's secret key and other users can read it (mode ${mode.toString(8).padStart(4, '0')}); make it yours alone: chmod 600 ${file}`);
  }
  const { crypto } = selectFrameKernel(log);
  // Chosen (and timed) when the first mirrored frame needs it: nothing of it at start.
  const nalKernel = new NalKernelChosenOnFirstUse(() => selectNalKernel(log).kernel);
  // Loaded only when used: --no-mdns never touches the multicast stack.
  const advertiser = mdns ? (await import('./mdns/advertiser')).createMdnsAdvertiser({ name: config.name, interfaces, log, unicast: commandLine.mdnsUnicast }) : undefined;
  // The display is the virtual screen (a web page, started below); --no-screen: none at all.
  const display: VirtualScreen | undefined = commandLine.screen ? new VirtualScreen(config.name, log) : undefined;
  // Video plays in the same page, for profiles that play video (photo-frame and speaker do not).
  const player = display && profilePlaysVideo(config.profile) ? new PagePlayer(log, undefined, config.limits) : undefined;
  let receiver: Receiver | undefined;
  // The screen first: a receiver that advertises photos must be able to show them. A taken
  // --screen-port stops start-up (rather than advertising photo features nobody can see, or
  // silently dropping them): the person picks another port, 0, or --no-screen.
  // Screen mirroring is decoded and shown by the screen page (WebCodecs), where the profile
  // offers it: the receiver's VideoDecoder port (the one wiring point for the mirroring listener).
  const screenDecoder =
    display && profileMirrors(config.profile)
      ? new PageDecoder({ geometry: commandLine.mirrorGeometry, now: () => nodeClock.now(), log, maxQueueBytes: config.limits.mirrorDisplayQueueBytes })
      : undefined;
  let screenServer: ScreenServer | undefined;
  if (display) {
    try {
      screenServer = await startScreenServer({ screen: display, player, port: commandLine.screenPort, log, mirror: screenDecoder });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'EADDRINUSE' ? 'the port is in use by another program' : (error as Error).message;
      process.stderr.write(`vendorplay-receiver: --screen-port ${commandLine.screenPort}: ${why}; choose another port (0 picks a free one) or --no-screen\n`);
      process.exitCode = 1;
      await advertiser?.shutdown();
      return;
    }
  }

  const servers: net.Server[] = [];
  const udpSockets: dgram.Socket[] = [];
  /** Closes what start-up opened, when it stops half-way. */
  const shutdownAll = async (): Promise<void> => {
    await advertiser?.shutdown();
    await screenServer?.close();
    for (const server of servers) server.close();
    for (const socket of udpSockets) socket.close();
  };
  // Screen mirroring (spec 4.4) needs a decoder with a display and UDP for NTP. The decoder:
  // the screen page's (screenDecoder, above), wrapped by --record's writer when asked; without
  // any decoder the receiver does not offer mirroring.
  let videoDecoder: VideoDecoder | undefined = screenDecoder;
  let recorder: StreamRecorder | undefined;
  if (commandLine.record !== undefined) {
    try {
      recorder = new StreamRecorder(commandLine.record, log, screenDecoder);
    } catch (error) {
      process.stderr.write(`vendorplay-receiver: --record ${commandLine.record}: ${fsCause(error)}\n`);
      process.exitCode = 1;
      await shutdownAll();
      return;
    }
    videoDecoder = recorder;
  }
  let udp: UdpBinder | undefined;
  let ntpPort = config.ntpPort;
  if (videoDecoder && profileMirrors(config.profile)) {
    try {
      // On the named interfaces' first IPv4 address (--interface lo: loopback only), else all.
      const ntpAddress = listenAddresses(interfaces).find((address) => address !== undefined && !address.includes(':'));
      const socket = await bindUdp(config.ntpPort, ntpAddress);
      ntpPort = socket.address().port;
      udp = sharedUdpBinder(socket, log);
      udpSockets.push(socket);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      process.stderr.write(`vendorplay-receiver: --ntp-port ${config.ntpPort}: ${code === 'EADDRINUSE' ? 'the port is in use by another program' : (error as Error).message}; choose another port (0 picks a free one)\n`);
      process.exitCode = 1;
      await shutdownAll();
      return;
    }
  }
  // Screen mirroring (spec 4.4) on its own listener, on the same addresses (the first may pick a
  // free port), where the receiver will mirror: it has a decoder and UDP for NTP (above). Bound
  // before anything else listens, and a port another program holds stops start-up (as
  // --screen-port and --ntp-port do): the receiver advertises mirroring (feature bit 7) only
  // where it serves it, and senders that find bit 7 connect to this port.
  const mirrorLines: string[] = [];
  if (udp) {
    let mirrorPort = config.mirrorPort;
    for (const address of listenAddresses(interfaces)) {
      let server: net.Server;
      try {
        // Connections that arrive before the receiver is built (a moment) are closed.
        server = await listen(mirrorPort, address, (connection) => (receiver ? receiver.acceptMirror(connection) : connection.close()));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') {
          process.stderr.write(`vendorplay-receiver: --mirror-port ${mirrorPort}: the port is in use by another program; choose another port (0 picks a free one)\n`);
          process.exitCode = 1;
          await shutdownAll();
          return;
        }
        // As for the HTTP port: an address unusable for a while is skipped, the others served.
        log('warn', `cannot listen for screen mirroring on ${address ?? 'all addresses'} port ${mirrorPort}: ${(error as Error).message}`);
        continue;
      }
      const bound = server.address() as net.AddressInfo;
      mirrorPort = bound.port;
      servers.push(server);
      mirrorLines.push(`listening on ${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port} (screen mirroring; NTP client on UDP port ${ntpPort}${recorder ? `, recording to ${recorder.file}` : ''})\n`);
    }
    if (mirrorLines.length === 0) {
      process.stderr.write(`vendorplay-receiver: --mirror-port ${config.mirrorPort}: no address to listen on for screen mirroring (see the warnings above)\n`);
      process.exitCode = 1;
      await shutdownAll();
      return;
    }
  }
  let port = config.port;
  for (const address of listenAddresses(interfaces)) {
    // The first listener may pick a free port (--port 0); the others take the same one.
    let server: net.Server;
    try {
      // Connections that arrive before the receiver is built (a moment) are closed.
      server = await listen(port, address, (connection) => (receiver ? receiver.accept(connection) : connection.close()));
    } catch (error) {
      // An address can be unusable for a while (an IPv6 address still tentative just after the
      // link came up): serve on the others rather than not at all.
      log('warn', `cannot listen on ${address ?? 'all addresses'} port ${port}: ${(error as Error).message}`);
      continue;
    }
    const bound = server.address() as net.AddressInfo;
    port = bound.port;
    servers.push(server);
    process.stdout.write(`listening on ${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port} (HTTP and RTSP)\n`);
  }
  if (servers.length === 0) {
    log('error', `no address to listen on (port ${config.port}); is the port in use?`);
    process.exitCode = 1;
    await shutdownAll();
    return;
  }
  // The configuration is complete (the ports it got) and frozen before the receiver exists.
  const frozen = freezeConfig({ ...config, port, ntpPort });
  try {
    receiver = new Receiver(frozen, { clock: nodeClock, random: nodeRandom, store: fileStore(dataDir), log, advertiser, display, player, crypto, videoDecoder, udp, nalKernel });
  } catch (error) {
    // A device key or certificate that cannot be read is a configuration error, found at start;
    // a data directory whose records cannot be read or written is said in one line too.
    if (error instanceof StoreFileError) storageFailed(error);
    else if (error instanceof ConfigError) {
      process.stderr.write(`vendorplay-receiver: ${error.message}\n`);
      process.exitCode = 2;
    } else throw error;
    await shutdownAll();
    return;
  }
  for (const line of mirrorLines) process.stdout.write(line);
  if (screenServer) process.stdout.write(`screen on ${screenServer.urls.join(' and ')} (virtual screen page)\n`);
  if (screenServer && player) process.stdout.write(`video plays in the screen page: open ${screenServer.urls[0]} in a browser to watch it\n`);
  receiver.start();
  process.stdout.write(`profile ${config.profile}, dialect ${config.dialect}, device id ${config.deviceId}, data in ${dataDir}\n`);
  for (const service of receiver.services()) {
    const txt = service.txt.map(([key, value]) => `${key}=${value}`).join(' ');
    process.stdout.write(`${mdns ? 'advertising' : 'not advertising (--no-mdns)'} "${service.name}" ${service.type} port ${service.port}: ${txt}\n`);
  }

  if (commandLine.activitySignal) {
    process.on('SIGUSR2', () => receiver.setActivity(receiver.activity === 'idle' ? 'receivingVideo' : 'idle'));
  }

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: stopping (goodbye packets, closing connections)`);
    receiver.stop();
    recorder?.closeFile();
    for (const socket of udpSockets) socket.close();
    await screenServer?.close();
    await advertiser?.shutdown();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
