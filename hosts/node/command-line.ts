// The receiver command's options: the help text, and the command line read into the receiver's
// configuration plus the Node host's own settings (screen, mDNS, data directory, --record).

import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDialectName } from '../../src/dialect';
import { receiverNameProblem } from '../../src/discovery/dnssd-names';
import { CONTROL_PORT } from '../../src/discovery/services';
import { MIRROR_PORT } from '../../src/mirror';
import { NTP_RECEIVER_PORT } from '../../src/timing';
import { readCertificateDer } from '../../src/pairing';
import type { LogLevel, ScreenGeometry } from '../../src/platform';
import { LOG_LEVELS } from '../../src/platform';
import { ConfigError, DEFAULT_LIMITS, makeConfig, type ReceiverConfig, type ReceiverLimits, loadOrCreateDeviceId, isProfileName, PROFILES } from '../../src/receiver';
import { defaultDataDir, fileStore, fsCause, makeDataDir, nodeRandom } from './io/ports';
import { HELP_WIDTH, optionsHelp, parseArgsOptions, wrap, type OptionValues } from './option-table';
import { RECEIVER_OPTIONS, SCREEN_PORT } from './receiver-options';
import { isMdnsMode, MDNS_MODES, type MdnsMode } from './mdns/choose-advertiser';
import { DEFAULT_MIRROR_GEOMETRY, parseMirrorSize } from './screen/page-decoder';
import { parseAddressRange, type AddressRange, type MediaDestinationRules } from '../../src/receiver/video/media-destinations';

const USAGE = `Usage: vendorplay-receiver [options]
       vendorplay-receiver pairings list|remove ID|clear|reset-tries [--data-dir DIR]

A receiver for the wireless media protocol, on this computer. The second form lists or removes
the paired senders kept in the data directory, or resets its count of wrong PINs (the receiver
need not run).
`;

/** --limit's names with their defaults, and the boards' own: sections of their own, wrapped. */
export function limitsHelp(): string {
  const settings = (limits: Partial<ReceiverLimits>): string =>
    Object.entries(limits)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
  const boards = Object.values(PROFILES)
    .filter((profile) => profile.limits)
    .map((profile) => wrap(settings(profile.limits ?? {}), HELP_WIDTH, '    ', `  ${profile.name}: `));
  return `Limits (--limit NAME=VALUE), with their defaults:\n${wrap(settings(DEFAULT_LIMITS), HELP_WIDTH, '  ')}\n\nThe boards' profiles set these instead:\n${boards.join('\n')}\n`;
}

/** The whole --help text: usage, the options by section, the limits. */
export function receiverHelp(): string {
  return `${USAGE}\n${optionsHelp(RECEIVER_OPTIONS)}\n${limitsHelp()}`;
}

/** The command line's options as parseArgs reads them, typed from the table. */
type ReceiverValues = OptionValues<typeof RECEIVER_OPTIONS>;

export interface CommandLine {
  config: ReceiverConfig;
  interfaces: string[];
  mdns: boolean;
  /** --mdns: who advertises, avahi-daemon or the built-in responder (mdns/choose-advertiser.ts). */
  mdnsMode: MdnsMode;
  mdnsUnicast: boolean;
  dataDir: string;
  logLevel: LogLevel;
  activitySignal: boolean;
  screenPort: number;
  screen: boolean;
  mirrorGeometry: ScreenGeometry;
  /** --record FILE: mirrored video written there. */
  record: string | undefined;
  /** --audio-out: the ALSA device realtime audio plays on (`default` unless told), or undefined: none. */
  audioOut: string | undefined;
  /** --record-audio FILE: realtime audio written there as a WAV. */
  recordAudio: string | undefined;
  /** --media-allow, --media-block-private: where video may be fetched from. */
  mediaDestinations: MediaDestinationRules;
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

/**
 * The command line as the receiver's configuration and the host's own settings, checked in full
 * before anything opens a socket: a mistake is a ConfigError of one line. Undefined after --help.
 * The data directory is made (and checked writable) here, since the device id is kept there.
 */
export function parseCommandLine(argv: string[]): CommandLine | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowNegative: false,
      options: parseArgsOptions(RECEIVER_OPTIONS),
    });
  } catch (error) {
    throw new ConfigError(usageMessage(error as Error));
  }
  const values = parsed.values as ReceiverValues;
  if (values.help) {
    process.stdout.write(receiverHelp());
    return undefined;
  }
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level ${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  if (values.profile !== undefined && !isProfileName(values.profile)) throw new ConfigError(`--profile ${JSON.stringify(values.profile)} is not one of ${Object.keys(PROFILES).join(', ')}`);
  if (values.dialect !== undefined && !isDialectName(values.dialect)) throw new ConfigError(`--dialect ${JSON.stringify(values.dialect)} is not vendor or apple`);
  const mdnsMode = values.mdns ?? 'auto';
  if (!isMdnsMode(mdnsMode)) throw new ConfigError(`--mdns ${JSON.stringify(mdnsMode)} is not one of ${MDNS_MODES.join(', ')}`);
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
    // Said to each sender in its SETUP answer: any free port serves unless a firewall must name it.
    eventPort: parsePort('event-port', values['event-port'], 0),
    timingPort: parsePort('timing-port', values['timing-port'], 0),
    audioPort: parsePort('audio-port', values['audio-port'], 0),
    audioControlPort: parsePort('audio-control-port', values['audio-control-port'], 0),
    limits: parseLimits(values.limit ?? []),
  });
  return {
    config,
    interfaces,
    mdns: !values['no-mdns'],
    mdnsMode,
    mdnsUnicast: !values['no-mdns-unicast'],
    dataDir,
    logLevel,
    activitySignal: values['activity-signal'] === true,
    screenPort: parsePort('screen-port', values['screen-port'], SCREEN_PORT),
    screen: !values['no-screen'],
    mirrorGeometry,
    record: values.record,
    audioOut: audioDevice(values['audio-out']),
    recordAudio: values['record-audio'],
    mediaDestinations: { allow: parseMediaAllow(values['media-allow'] ?? []), privateRanges: !values['media-block-private'] },
  };
}

/** --media-allow ranges: CIDR or bare addresses, each option one or a comma list. */
function parseMediaAllow(settings: string[]): AddressRange[] {
  return settings.flatMap((setting) =>
    setting.split(',').map((text) => {
      const range = parseAddressRange(text.trim());
      if (!range) throw new ConfigError(`--media-allow ${JSON.stringify(text)} is not an address range (CIDR, e.g. 127.0.0.0/8 or fd00::/8, or one address)`);
      return range;
    }),
  );
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

/** --audio-out's device: `default` when not given, undefined for `none`; a name aplay -D takes (no spaces). */
function audioDevice(text: string | undefined): string | undefined {
  if (text === undefined) return 'default';
  if (text === 'none') return undefined;
  if (!/^[\x21-\x7e]+$/.test(text)) throw new ConfigError(`--audio-out ${JSON.stringify(text)} is not an ALSA device name (default, hw:0, plughw:1,0...) or none`);
  return text;
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
