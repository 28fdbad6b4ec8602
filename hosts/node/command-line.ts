// The receiver command's options: the help text, and the command line read into the receiver's
// configuration plus the Node host's own settings (screen, mDNS, data directory, --record).

import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDialectName } from '../../src/dialect';
import { receiverNameProblem } from '../../src/discovery/dnssd-names';
import { CONTROL_PORT } from '../../src/discovery/services';
import { RANDOM_PIN, readCertificateDer } from '../../src/pairing';
import type { LogLevel, ScreenGeometry } from '../../src/platform';
import { LOG_LEVELS } from '../../src/platform';
import { ConfigError, DEFAULT_LIMITS, makeConfig, type ReceiverConfig, type ReceiverLimits, loadOrCreateDeviceId, isProfileName, PROFILES } from '../../src/receiver';
import { normaliseDeviceId } from '../../src/receiver/config';
import { LOG_FORMATS, type LogFormat } from './io/log-lines';
import { defaultDataDir, fileStore, fsCause, makeDataDir, nodeRandom } from './io/ports';
import { HELP_WIDTH, optionsHelp, parseArgsOptions, wrap, type OptionValues } from './option-table';
import { DEFAULT_PORTS, PORT_OFFSETS, RECEIVER_OPTIONS, type PortOption } from './receiver-options';
import { configFileCandidates, configFileError, findConfigFile, lineOf, readConfigFile } from './config-file';
import { packageVersion } from './package-version';
import { isMdnsMode, MDNS_MODES, type MdnsMode } from './mdns/choose-advertiser';
import { DEFAULT_MIRROR_GEOMETRY, parseMirrorSize } from './screen/page-decoder';
import { HOOK_TIMEOUT_MS, MAX_RUNNING_HOOKS } from './event-hooks';
import { AccessList, AccessListError } from '../../src/receiver/access-list';
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
  /** --log-format: the shape of every line it prints (io/log-lines.ts). */
  logFormat: LogFormat;
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
  /** --on-event COMMAND: run on each receiver event (event-hooks.ts). */
  onEvent: string | undefined;
  /** --on-event-max-running, --on-event-timeout (seconds, here in ms): the hooks' limits. */
  onEventLimits: { readonly maxRunning: number; readonly timeoutMs: number };
  /** The config file read (--config, or the first that exists of the default places), if any. */
  configFile: string | undefined;
  /** Which config file was read, or where none was found: said in the log at start. */
  configNote: string;
}

function parsePort(name: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new OptionError(name, text, `${JSON.stringify(text)} is not a port number (0 to 65535)`);
  return Number(text);
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
    const problem = `${dir} cannot be used: ${fsCause(error)}`;
    throw new OptionError('data-dir', dir, problem, `data directory ${problem}; choose another with --data-dir DIR`);
  };
  try {
    makeDataDir(dir);
  } catch (error) {
    fail(error);
  }
  try {
    if (!statSync(dir).isDirectory()) fail(Object.assign(new Error('not a directory'), { code: 'EEXIST' }));
  } catch (error) {
    if (error instanceof OptionError) throw error;
    fail(error);
  }
  const probe = path.join(dir, `.write-check.${process.pid}`);
  try {
    writeFileSync(probe, '');
    // unlinkSync, not rmSync: the file was just written, and rmSync loads Node's rimraf at every start.
    unlinkSync(probe);
  } catch (error) {
    fail(error);
  }
}

/**
 * A value an option cannot take: says `--option problem` on the command line, and is said with
 * its file, line and key when the value came from the config file.
 */
class OptionError extends ConfigError {
  constructor(
    readonly option: string,
    readonly value: string | undefined,
    readonly problem: string,
    message = `--${option} ${problem}`,
  ) {
    super(message);
  }
}

/** The command line's own options, read by node:util; a mistake is a ConfigError of one line. */
function readArguments(argv: string[]): ReceiverValues {
  try {
    const parsed = parseArgs({ args: argv, strict: true, allowNegative: false, options: parseArgsOptions(RECEIVER_OPTIONS) });
    return parsed.values as ReceiverValues;
  } catch (error) {
    throw new ConfigError(usageMessage(error as Error));
  }
}

/**
 * The command line, over the config file's settings, as the receiver's configuration and the
 * host's own settings, checked in full before anything opens a socket: a mistake is a
 * ConfigError of one line (naming the file, line and key when the file gave the value).
 * Undefined after --help or --version. The data directory is made (and checked writable) here,
 * since the device id is kept there.
 */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): CommandLine | undefined {
  const given = readArguments(argv);
  if (given.help) {
    process.stdout.write(receiverHelp());
    return undefined;
  }
  if (given.version) {
    process.stdout.write(`vendorplay-receiver ${packageVersion()}\n`);
    return undefined;
  }
  const configFile = findConfigFile(given.config, configFileCandidates(env));
  const file = configFile === undefined ? undefined : readConfigFile(configFile, RECEIVER_OPTIONS);
  // Key by key, the command line wins.
  const values = { ...file?.values, ...given } as ReceiverValues;
  try {
    const configNote = configFile === undefined ? `no config file (looked for ${configFileCandidates(env).join(', ')})` : `config file ${configFile}`;
    return { ...settingsOf(values), configFile, configNote };
  } catch (error) {
    if (error instanceof OptionError && file && given[error.option as keyof ReceiverValues] === undefined) {
      const line = lineOf(file, error.option, error.value);
      if (line !== undefined) throw configFileError(file.file, line, error.option, error.problem);
    }
    throw error;
  }
}

/** The ports: each given one as given; the others at their offsets from --port, or free with --port 0. */
function portsOf(values: ReceiverValues): Record<PortOption, number> {
  const base = values.port === undefined ? undefined : parsePort('port', values.port);
  const ports = {} as Record<PortOption, number>;
  for (const [option, offset] of Object.entries(PORT_OFFSETS) as [PortOption, number][]) {
    const text = values[option];
    if (text !== undefined) ports[option] = parsePort(option, text);
    else if (base === undefined) ports[option] = DEFAULT_PORTS[option];
    else if (base === 0) ports[option] = 0;
    else if (base + offset > 65535) throw new OptionError('port', values.port, `${base}: --${option} would be ${base + offset} (--port + ${offset}), past 65535; give --${option} or a lower --port`);
    else ports[option] = base + offset;
  }
  return ports;
}

/** Every value checked and turned into the receiver's configuration and the host's settings. */
function settingsOf(values: ReceiverValues): Omit<CommandLine, 'configFile' | 'configNote'> {
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new OptionError('log-level', logLevel, `${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = (values['log-format'] ?? 'text') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) throw new OptionError('log-format', logFormat, `${JSON.stringify(logFormat)} is not one of ${LOG_FORMATS.join(', ')}`);
  if (values.profile !== undefined && !isProfileName(values.profile)) throw new OptionError('profile', values.profile, `${JSON.stringify(values.profile)} is not one of ${Object.keys(PROFILES).join(', ')}`);
  if (values.dialect !== undefined && !isDialectName(values.dialect)) throw new OptionError('dialect', values.dialect, `${JSON.stringify(values.dialect)} is not vendor or apple`);
  const mdnsMode = values.mdns ?? 'auto';
  if (!isMdnsMode(mdnsMode)) throw new OptionError('mdns', mdnsMode, `${JSON.stringify(mdnsMode)} is not one of ${MDNS_MODES.join(', ')}`);
  // Before the data directory is touched: a name discovery cannot publish is refused here, in
  // one line, rather than by a stack trace once the receiver starts advertising.
  const nameProblem = values.name === undefined ? undefined : receiverNameProblem(values.name);
  if (nameProblem) throw new OptionError('name', values.name, nameProblem);
  if (values.pin !== undefined && values.pin !== RANDOM_PIN && !/^\d{4,8}$/.test(values.pin)) throw new OptionError('pin', values.pin, `${JSON.stringify(values.pin)} is not 4 to 8 digits or ${RANDOM_PIN}`);
  if (values['device-id'] !== undefined) {
    try {
      normaliseDeviceId(values['device-id']);
    } catch {
      throw new OptionError('device-id', values['device-id'], `${JSON.stringify(values['device-id'])} is not a MAC address (six hex bytes, e.g. AA:BB:CC:DD:EE:FF)`);
    }
  }
  const mirrorGeometry = values['mirror-size'] === undefined ? DEFAULT_MIRROR_GEOMETRY : parseMirrorSize(values['mirror-size']);
  if (!mirrorGeometry) throw new OptionError('mirror-size', values['mirror-size'], `${JSON.stringify(values['mirror-size'])} is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60)`);
  const ports = portsOf(values);
  const limits = parseLimits(values.limit ?? []);
  const audioOut = audioDevice(values['audio-out']);
  const mediaAllow = parseMediaAllow(values['media-allow'] ?? []);
  const interfaces = values.interface ?? [];
  const known = networkInterfaces();
  for (const name of interfaces) if (!known[name]) throw new OptionError('interface', name, `${name}: no such interface (have: ${Object.keys(known).join(', ')})`);
  const auth = readAuthFiles(values['auth-key'], values['auth-certificate']);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  checkDataDir(dataDir);
  const config = makeConfig({
    ...(values.name !== undefined && { name: values.name }),
    ...(values.profile !== undefined && { profile: values.profile as ReceiverConfig['profile'] }),
    ...(values.dialect !== undefined && { dialect: values.dialect as ReceiverConfig['dialect'] }),
    ...(values.pin !== undefined && { pin: values.pin }),
    ...(values.password !== undefined && { password: values.password }),
    ...(values['pin-required'] && { pinRequired: true }),
    ...auth,
    deviceId: values['device-id'] ?? loadOrCreateDeviceId(fileStore(dataDir), nodeRandom),
    port: parsePort('port', values.port ?? String(CONTROL_PORT)),
    mirrorPort: ports['mirror-port'],
    ntpPort: ports['ntp-port'],
    eventPort: ports['event-port'],
    timingPort: ports['timing-port'],
    audioPort: ports['audio-port'],
    audioControlPort: ports['audio-control-port'],
    allow: accessEntries('allow', values.allow ?? []),
    block: accessEntries('block', values.block ?? []),
    limits,
  });
  return {
    config,
    interfaces,
    mdns: !values['no-mdns'],
    mdnsMode,
    mdnsUnicast: !values['no-mdns-unicast'],
    dataDir,
    logLevel,
    logFormat,
    activitySignal: values['activity-signal'] === true,
    screenPort: ports['screen-port'],
    screen: !values['no-screen'],
    mirrorGeometry,
    record: values.record,
    audioOut,
    recordAudio: values['record-audio'],
    mediaDestinations: { allow: mediaAllow, privateRanges: !values['media-block-private'] },
    onEvent: values['on-event'],
    onEventLimits: {
      maxRunning: positiveInteger('on-event-max-running', values['on-event-max-running'] ?? String(MAX_RUNNING_HOOKS)),
      timeoutMs: positiveInteger('on-event-timeout', values['on-event-timeout'] ?? String(HOOK_TIMEOUT_MS / 1000)) * 1000,
    },
  };
}

/** A whole number above 0 (a count, seconds), or the option named as bad. */
function positiveInteger(name: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) === 0) throw new OptionError(name, text, `${JSON.stringify(text)} is not a whole number above 0`);
  return Number(text);
}

/** --allow, --block entries (src/receiver/access-list.ts), each option one or a comma list; a bad one is named. */
function accessEntries(option: 'allow' | 'block', settings: string[]): string[] {
  return settings.flatMap((setting) =>
    setting.split(',').map((text) => {
      const entry = text.trim();
      try {
        new AccessList([entry], []);
      } catch (error) {
        if (error instanceof AccessListError) throw new OptionError(option, setting, error.message.replace('allow entry ', ''));
        throw error;
      }
      return entry;
    }),
  );
}

/** --media-allow ranges: CIDR or bare addresses, each option one or a comma list. */
function parseMediaAllow(settings: string[]): AddressRange[] {
  return settings.flatMap((setting) =>
    setting.split(',').map((text) => {
      const range = parseAddressRange(text.trim());
      if (!range) throw new OptionError('media-allow', setting, `${JSON.stringify(text)} is not an address range (CIDR, e.g. 127.0.0.0/8 or fd00::/8, or one address)`);
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
      throw new OptionError(flag, file, `${file}: ${(error as Error).message}`);
    }
  };
  const certificate = read('auth-certificate', certificateFile);
  const text = certificate.toString('latin1');
  let der: Uint8Array;
  try {
    der = text.includes('-----BEGIN ') ? readCertificateDer(text) : readCertificateDer(new Uint8Array(certificate));
  } catch (error) {
    throw new OptionError('auth-certificate', certificateFile, `${certificateFile}: ${(error as Error).message}`);
  }
  return { authKey: read('auth-key', keyFile).toString('utf8'), authCertificate: der };
}

/** --audio-out's device: `default` when not given, undefined for `none`; a name aplay -D takes (no spaces). */
function audioDevice(text: string | undefined): string | undefined {
  if (text === undefined) return 'default';
  if (text === 'none') return undefined;
  if (!/^[\x21-\x7e]+$/.test(text)) throw new OptionError('audio-out', text, `${JSON.stringify(text)} is not an ALSA device name (default, hw:0, plughw:1,0...) or none`);
  return text;
}

/** `--limit maxConnections=32` pairs; names and values are checked against DEFAULT_LIMITS. */
function parseLimits(settings: string[]): Partial<ReceiverLimits> {
  const limits: Partial<ReceiverLimits> = {};
  for (const setting of settings) {
    const [name, text] = setting.split('=');
    if (!Object.prototype.hasOwnProperty.call(DEFAULT_LIMITS, name)) {
      throw new OptionError('limit', setting, `${setting}: unknown limit "${name}" (the names are under Limits in --help)`);
    }
    if (!/^\d+$/.test(text ?? '') || Number(text) === 0) throw new OptionError('limit', setting, `${setting}: value must be a positive integer`);
    limits[name as keyof ReceiverLimits] = Number(text);
  }
  return limits;
}
