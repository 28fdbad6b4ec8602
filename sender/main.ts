// `vendorplay-send`: a sender for trying a receiver by hand and for end-to-end tests. Pushes a
// photo (PUT /photo), plays a folder of JPEGs as a slideshow (PUT /slideshows/1, serving
// GET /slideshows/1/assets/1 on its reverse connections and printing the events it receives),
// plays a video by URL and controls it (POST /play, /scrub, /rate, GET /playback-info: video.ts),
// streams an audio file as realtime audio (audio/audio-command.ts), or stops what a receiver
// shows (POST /stop). Pairs with a receiver that asks for a PIN (pair, pairings, unpair:
// pairing.ts); every connection to a paired receiver then pair-verifies and is encrypted.

import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DIALECTS, isDialectName, type Dialect } from '../src/dialect';
import { utf8Decode } from '../src/bytes';
import { EVENT_PURPOSE, HEADER, SLIDESHOW_PURPOSE, type RequestHead, type ResponseHead } from '../src/http';
import { decodePlist, encodeBinaryPlist, encodeXmlPlistBytes, isPlistDict, type PlistDict } from '../src/plist';
import { sendMirror } from './mirror';
import { MIRROR_PORT } from '../src/mirror';
import { completion, ControlConnection, eventServer, ReverseChannel, SendError, describeEndpoint, parseEndpoint, type CommonHeaders, type Endpoint, type Message, type ReverseAnswer } from './wire';
import { info, playVideo, rate, scrub, type SetupMode, type VideoCommon } from './video';
import { sendAudio, type AudioPath } from './audio/audio-command';
import { optionsHelp, parseArgsOptions, type OptionValues } from '../hosts/node/option-table';
import { packageVersion } from '../hosts/node/package-version';
import { SENDER_OPTIONS } from './options';
import { listPairings, pair, removeOnReceiver, unpair, verifierFor } from './pairing';

/** The installed package's version: the User-Agent and --version say it. */
const VERSION = packageVersion();

const USAGE = `Usage:
  vendorplay-send photo HOST:PORT FILE.jpg [--transition NAME]
  vendorplay-send slideshow HOST:PORT DIR [--duration SECONDS] [--theme NAME]
  vendorplay-send play HOST:PORT URL [--start FRACTION | --start-seconds SECONDS]
  vendorplay-send scrub HOST:PORT [SECONDS]
  vendorplay-send rate HOST:PORT VALUE
  vendorplay-send info HOST:PORT
  vendorplay-send stop HOST:PORT
  vendorplay-send mirror HOST[:PORT] FILE.mp4|FILE.h264 [--fps N] [--bind ADDRESS]
  vendorplay-send audio HOST:PORT FILE [--codec pcm|alac] [--path classic|session]
  vendorplay-send pair HOST:PORT [--pin DIGITS]
  vendorplay-send pairings
  vendorplay-send unpair HOST:PORT|ID [--on-receiver]

Sends to a receiver of the wireless media protocol.

Commands:
  photo       shows a JPEG picture at once (PUT /photo)
  slideshow   plays the JPEG files of DIR as a slideshow, in name order, over and over:
              opens an event connection and slideshow connections back from the receiver,
              serves the pictures it asks for and prints the events it sends; Ctrl-C stops it
  play        plays the video at URL (http or https; MP4 or an HLS playlist) (POST /play):
              opens an event connection back from the receiver and prints the video events
              as they come, until the video ends or fails (exit status 1, with the reason
              from the receiver's error log); Ctrl-C stops it (POST /stop)
  scrub       without SECONDS, prints where the video is (GET /scrub); with SECONDS,
              moves it there (POST /scrub)
  rate        0 pauses the video, 1 plays it; other rates where the receiver can (POST /rate);
              a negative VALUE goes after --: rate HOST:PORT -- -1
  info        prints the playback information: position, duration, rate, buffer, loaded
              and seekable ranges (GET /playback-info)
  stop        stops the photo, slideshow or video a receiver shows (POST /stop)
  mirror      streams an H.264 file as screen mirroring (PORT: the mirroring port, default
              7100): serves NTP on UDP 7010, GET /stream.xml, POST /stream, codec data, the
              frames at the file's frame rate, a heartbeat every second; MP4/MOV/MKV need ffmpeg
  audio       streams any file ffmpeg reads as realtime audio (44100 Hz, 16-bit stereo, 352
              frames a packet, paced in real time): RTP packets to the receiver's data port, a
              sync packet every second, packets sent again when asked, a timing server; then
              --latency frames of silence and TEARDOWN. Ctrl-C ends it early (with TEARDOWN)
  pair        pairs with a receiver that asks for a PIN: asks it to show one (POST
              /pair-pin-start), reads the PIN from the terminal (or stdin), pair-setup; keeps
              the pairing in $XDG_CONFIG_HOME/vendorplay/sender.json (~/.config without it).
              Every command to that HOST:PORT then pair-verifies each connection and talks
              encrypted (not mirror: the mirroring port has no pairing)
  pairings    lists the receivers paired with: address, identifier, when
  unpair      forgets the pairing with a receiver (by HOST:PORT or its identifier); the
              receiver keeps its side unless --on-receiver asks it to remove it too

`;

/** The whole --help text: usage, commands, the options by section. */
function senderHelp(): string {
  return `${USAGE}\n${optionsHelp(SENDER_OPTIONS)}`;
}

/** --setup: auto, ntp, none or off. */
function setupMode(text: string | undefined): SetupMode {
  if (text === undefined) return 'auto';
  if (text === 'auto' || text === 'ntp' || text === 'none' || text === 'off') return text;
  throw new UsageError(`--setup ${JSON.stringify(text)}: auto, ntp, none or off`);
}

/** Exit status 2: the command line is wrong (one line, and a pointer to --help). */
class UsageError extends Error {
  override name = 'UsageError';
}

interface Common {
  readonly endpoint: Endpoint;
  readonly dialect: Dialect;
  readonly sessionId: string | undefined;
  readonly headers: CommonHeaders;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function kilobytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

function readFile(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (error) {
    throw new SendError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

function expectOk(what: string, response: Message<ResponseHead>): void {
  if (response.head.status !== 200) throw new SendError(`${what}: the receiver answered ${response.head.status} ${response.head.reason}${refusalReason(response)}`);
}

/**
 * The reason a receiver gave with a refusal: its one-line text body (this receiver sends one
 * with every 4xx and 5xx), as `: reason`; nothing when it sent none.
 */
function refusalReason(response: Message<ResponseHead>): string {
  const type = response.head.headers.get(HEADER.contentType) ?? '';
  if (!/^text\/plain\b/i.test(type) || response.body.length === 0) return '';
  const text = utf8Decode(response.body.subarray(0, 1000), false).split(/\r?\n/)[0].trim();
  return text ? `: ${text}` : '';
}

// ---------------------------------------------------------------------------------------------
// photo

async function sendPhoto(common: Common, file: string, transition: string | undefined): Promise<void> {
  const jpeg = readFile(file);
  if (!isJpeg(jpeg)) throw new SendError(`${file} is not a JPEG file (it does not start with FF D8 FF)`);
  const { dialect, endpoint } = common;
  const control = await ControlConnection.open(endpoint, common.headers);
  try {
    say(`sending ${path.basename(file)} (${kilobytes(jpeg.length)}) to ${describeEndpoint(endpoint)}${transition ? ` with transition ${transition}` : ''}...`);
    const headers: [string, string][] = [
      [HEADER.contentType, 'image/jpeg'],
      [dialect.headers.AssetKey, randomUUID().toUpperCase()],
    ];
    if (transition) headers.push([dialect.headers.Transition, transition]);
    const response = await control.request('PUT', '/photo', headers, jpeg);
    expectOk('PUT /photo', response);
    say(`shown: ${response.head.status} ${response.head.reason}`);
  } finally {
    control.close();
  }
}

// ---------------------------------------------------------------------------------------------
// stop

async function sendStop(common: Common): Promise<void> {
  const control = await ControlConnection.open(common.endpoint, common.headers);
  try {
    const response = await control.request('POST', '/stop');
    expectOk('POST /stop', response);
    say(`stopped ${describeEndpoint(common.endpoint)}${common.sessionId ? ` (session ${common.sessionId})` : ''}: ${response.head.status} ${response.head.reason}`);
  } finally {
    control.close();
  }
}

// ---------------------------------------------------------------------------------------------
// slideshow

/** The JPEG files of a folder, in name order. */
function listPictures(dir: string): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new SendError(`${dir} is not a folder`);
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof SendError) throw error;
    throw new SendError(`cannot read the folder ${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (error as Error).message}`);
  }
  const pictures = names.filter((name) => /\.jpe?g$/i.test(name)).sort();
  if (pictures.length === 0) throw new SendError(`no JPEG files (.jpg, .jpeg) in ${dir}`);
  return pictures.map((name) => path.join(dir, name));
}

interface SlideshowOptions {
  readonly dir: string;
  readonly duration: number;
  readonly theme: string;
  readonly connections: number;
  readonly stopAfterMs: number | undefined;
}

/** Pictures (spec 2.8): the folder over and over; each reply a new asset id. */
function assetServer(pictures: string[], dialect: Dialect): (request: Message<RequestHead>) => ReverseAnswer {
  let nextId = 1;
  return (request) => {
    if (request.head.method !== 'GET' || !/^\/slideshows\/1\/assets\/\d+$/.test(request.head.target)) return { status: 404 };
    const id = nextId++;
    const file = pictures[(id - 1) % pictures.length];
    const jpeg = readFile(file);
    say(`asset ${id}: ${path.basename(file)} (${kilobytes(jpeg.length)})`);
    const reply: PlistDict = { data: jpeg, info: { id, key: 1 } };
    return { status: 200, headers: [[HEADER.contentType, dialect.mime.plistBinary]], body: encodeBinaryPlist(reply) };
  };
}

/** The themes the receiver offers: a note (only) when ours is not among them; none at all is an error. */
async function checkThemes(control: ControlConnection, where: string, theme: string): Promise<void> {
  const features = await control.request('GET', '/slideshow-features', [[HEADER.acceptLanguage, 'en']]);
  if (features.head.status === 200) {
    const body = decodePlist(features.body);
    const keys = isPlistDict(body) && Array.isArray(body.themes) ? body.themes.map((offered) => (isPlistDict(offered) ? String(offered.key) : '')) : [];
    if (!keys.includes(theme)) say(`note: the receiver offers the themes ${keys.join(', ')}; asking for ${theme} anyway`);
  } else if (features.head.status === 404 || features.head.status === 501) {
    throw new SendError(`${where} does not do slideshows (GET /slideshow-features: ${features.head.status})`);
  }
}

async function playSlideshow(common: Common, options: SlideshowOptions): Promise<void> {
  const { dialect, endpoint } = common;
  const pictures = listPictures(options.dir);
  const where = describeEndpoint(endpoint);
  const control = await ControlConnection.open(endpoint, common.headers);
  let stopping = false;
  // Awaited only once the show runs; a connection lost before that is said by the command.
  const { done, finish } = completion();
  control.onClose = (reason) => {
    if (!stopping) finish(new SendError(`control connection to ${where}: ${reason}`));
  };

  // Events (spec 6): printed as they come.
  let lastState = '';
  let stoppedSeen: () => void = () => {};
  const stoppedEvent = new Promise<void>((resolve) => (stoppedSeen = resolve));
  const serveEvent = eventServer(say, (event) => {
    const last = event.lastAssetID !== undefined ? ` (last asset ${String(event.lastAssetID)})` : '';
    say(`event: ${String(event.category)} ${String(event.state)}${last}`);
    lastState = String(event.state);
    if (event.category === 'slideshow' && event.state === 'stopped') {
      stoppedSeen();
      // Stopped by someone else (POST /stop, another sender's show): the session is over.
      if (!stopRequested) setTimeout(() => void end('the receiver stopped the slideshow'), 0);
    }
  });

  const serveAsset = assetServer(pictures, dialect);

  const channels = new Set<ReverseChannel>();
  const openChannel = async (purpose: typeof EVENT_PURPOSE | typeof SLIDESHOW_PURPOSE): Promise<void> => {
    const channel = await ReverseChannel.open({
      endpoint,
      common: common.headers,
      purposeHeader: dialect.headers.Purpose,
      purpose,
      serve: purpose === EVENT_PURPOSE ? serveEvent : serveAsset,
    });
    channels.add(channel);
    channel.onClose = (reason) => {
      channels.delete(channel);
      if (stopping) return;
      // A lost connection is normal (a timeout, a restart): open it again, as senders do.
      say(`${purpose} connection closed (${reason}); reconnecting`);
      setTimeout(() => {
        if (!stopping) openChannel(purpose).catch((error: Error) => say(`reconnect failed: ${error.message}`));
      }, 1000).unref();
    };
  };

  let stopRequested = false;
  /** Closes every connection and ends the command. */
  const end = (why?: string): void => {
    if (stopping) return;
    stopping = true;
    if (why) say(why);
    for (const channel of channels) channel.close();
    control.close();
    finish();
  };
  const stop = async (why: string): Promise<void> => {
    if (stopping || stopRequested) return;
    stopRequested = true;
    say(`stopping (${why})`);
    try {
      const response = await control.request('PUT', '/slideshows/1', [[HEADER.contentType, dialect.mime.plistXml]], encodeXmlPlistBytes({ state: 'stopped' }));
      expectOk('PUT /slideshows/1 (stopped)', response);
      // The receiver says stopped on the event connection; wait for it a little.
      if (lastState !== 'stopped') await Promise.race([stoppedEvent, new Promise((resolve) => setTimeout(resolve, 2000))]);
    } finally {
      end();
    }
  };

  try {
    await checkThemes(control, where, options.theme);
    await openChannel(EVENT_PURPOSE);
    for (let i = 0; i < options.connections; i++) await openChannel(SLIDESHOW_PURPOSE);
    say(`slideshow of ${pictures.length} pictures on ${where}: ${options.duration} s per slide, theme ${options.theme}, session ${common.sessionId}`);
    const settings: PlistDict = { settings: { slideDuration: options.duration, theme: options.theme }, state: 'playing' };
    const response = await control.request('PUT', '/slideshows/1', [[HEADER.contentType, dialect.mime.plistXml]], encodeXmlPlistBytes(settings));
    expectOk('PUT /slideshows/1', response);
  } catch (error) {
    end();
    throw error;
  }

  const onSignal = (signal: string) => void stop(signal).catch((error: Error) => finish(error));
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  if (options.stopAfterMs !== undefined) setTimeout(() => onSignal(`--stop-after ${options.stopAfterMs! / 1000}`), options.stopAfterMs).unref();
  await done;
}

// ---------------------------------------------------------------------------------------------
// command line

/** The commands, and the argument each takes after HOST:PORT. */
const TARGETS = {
  photo: { name: 'JPEG file', required: true },
  slideshow: { name: 'folder of JPEG files', required: true },
  play: { name: 'video URL', required: true },
  scrub: { name: 'position in seconds', required: false },
  rate: { name: 'rate (0 pauses, 1 plays)', required: true },
  info: { name: undefined, required: false },
  stop: { name: undefined, required: false },
  mirror: { name: 'H.264 file (.mp4 or .h264)', required: true },
  audio: { name: 'audio file', required: true },
  pair: { name: undefined, required: false },
} as const;
type Command = keyof typeof TARGETS;
/** Commands that name no receiver to send to: `pairings`, and `unpair`, which takes an identifier too. */
const OFFLINE_COMMANDS = ['pairings', 'unpair'] as const;
const COMMANDS = [...Object.keys(TARGETS), ...OFFLINE_COMMANDS];

/** A number from `min` to `max` (an option's `--name`, or an argument's description). */
function numberIn(name: string, text: string, min: number, max: number, option = true): number {
  const value = /^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${option ? '--' : ''}${name} ${JSON.stringify(text)} is not a number from ${min} to ${max}`);
  return value;
}

function positiveNumber(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0 && value <= max)) throw new UsageError(`--${name} ${JSON.stringify(text)} is not a number from above 0 to ${max}`);
  return value;
}

/** node:util parseArgs errors in one short line (`unknown option --bogus`). */
function usageMessage(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `unknown option ${quoted}`;
  return error.message.split(/\.\s/)[0];
}

/** The options as node:util reads them; a mistake is a UsageError of one line. */
function readOptions(argv: string[]): { values: Options; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: parseArgsOptions(SENDER_OPTIONS),
    });
    return { values: values as Options, positionals };
  } catch (error) {
    throw new UsageError(usageMessage(error as Error));
  }
}

type Options = OptionValues<typeof SENDER_OPTIONS>;

/** The command and its HOST:PORT and argument, checked against TARGETS. */
function readPositionals(positionals: string[]): { command: Command; address: string; target: string | undefined } {
  const [command, address, target, ...extra] = positionals;
  if (!command) throw new UsageError(`no command: ${COMMANDS.join(', ')}`);
  if (!Object.prototype.hasOwnProperty.call(TARGETS, command)) throw new UsageError(`unknown command "${command}": ${COMMANDS.join(', ')}`);
  if (!address) throw new UsageError(`${command}: the receiver's HOST:PORT is missing`);
  const wants = TARGETS[command as Command];
  if (wants.required && !target) throw new UsageError(`${command}: the ${wants.name} is missing`);
  if (extra.length > 0 || (!wants.name && target)) throw new UsageError(`${command}: unexpected argument "${extra[0] ?? target}"`);
  return { command: command as Command, address, target };
}

/** The options only the audio command takes. */
const AUDIO_OPTIONS = ['codec', 'path', 'latency', 'start-delay', 'volume', 'clock-ppm'] as const;

/** `pairings` and `unpair RECEIVER`: the credentials file (and, with --on-receiver, the receiver). */
async function runOffline(command: (typeof OFFLINE_COMMANDS)[number], positionals: string[], values: Options): Promise<void> {
  const [, which, extra] = positionals;
  if (values['on-receiver'] && command !== 'unpair') throw new UsageError('--on-receiver: only for unpair');
  if (command === 'pairings') {
    if (which !== undefined) throw new UsageError(`pairings: unexpected argument "${which}"`);
    return listPairings(say);
  }
  if (!which) throw new UsageError("unpair: the receiver's HOST:PORT or identifier is missing");
  if (extra !== undefined) throw new UsageError(`unpair: unexpected argument "${extra}"`);
  let address = which;
  try {
    // Written as commands write it (127.0.0.1 is 127.0.0.1:7000), when it is an address.
    address = describeEndpoint(parseEndpoint(which));
  } catch {
    if (values['on-receiver']) throw new UsageError(`unpair --on-receiver: "${which}" is not HOST:PORT`);
  }
  if (values['on-receiver']) {
    const headers: CommonHeaders = () => [[HEADER.userAgent, `vendorplay-send/${VERSION}`]];
    await removeOnReceiver(parseEndpoint(address), headers, say);
  }
  unpair(address, say);
}

/** What every command sends with: the receiver's endpoint, the dialect, the session id. */
function commonSettings(command: Command, address: string, values: Options): Common {
  const dialectName = values.dialect ?? 'vendor';
  if (!isDialectName(dialectName)) throw new UsageError(`--dialect ${JSON.stringify(dialectName)} is not vendor or apple`);
  const dialect = DIALECTS[dialectName];
  let endpoint: Endpoint;
  try {
    // spec 4.4: mirroring's own port when none is given.
    endpoint = command === 'mirror' ? parseEndpoint(address, MIRROR_PORT) : parseEndpoint(address);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.session !== undefined && !/^[0-9a-fA-F-]{36}$/.test(values.session)) throw new UsageError(`--session ${JSON.stringify(values.session)} is not a UUID`);
  // One session id on every connection (spec 1.7); `stop` sends none unless told, which stops
  // whatever the receiver shows.
  const sessionId = values.session ?? (command === 'stop' ? undefined : randomUUID().toUpperCase());
  if (values.start !== undefined && command !== 'play') throw new UsageError(`--start: only for play`);
  if (values['start-seconds'] !== undefined && command !== 'play') throw new UsageError(`--start-seconds: only for play`);
  if (values.setup !== undefined && command !== 'play') throw new UsageError(`--setup: only for play`);
  for (const name of AUDIO_OPTIONS) if (values[name] !== undefined && command !== 'audio') throw new UsageError(`--${name}: only for audio`);
  if (values.pin !== undefined && command !== 'pair') throw new UsageError('--pin: only for pair');
  if (values['no-pair'] && (command === 'pair' || command === 'mirror')) throw new UsageError(`--no-pair: not for ${command}`);
  const headers: CommonHeaders = () => {
    const list: [string, string][] = [[HEADER.userAgent, `vendorplay-send/${VERSION}`]];
    if (sessionId) list.push([dialect.headers['Session-ID'], sessionId]);
    return list;
  };
  // A receiver paired with: each connection pair-verifies first (the mirroring port has no pairing).
  if (command !== 'pair' && command !== 'mirror' && !values['no-pair']) endpoint = { ...endpoint, verify: verifierFor(endpoint, headers) };
  return { endpoint, dialect, sessionId, headers };
}

/** `mirror HOST[:PORT] FILE`: the stream and its clock, paced at --fps. */
async function runMirror(common: Common, file: string | undefined, values: Options): Promise<void> {
  const clockOffsetMs = values['clock-offset'] === undefined ? 0 : Number(values['clock-offset']);
  if (!Number.isFinite(clockOffsetMs) || clockOffsetMs < 0) throw new UsageError(`--clock-offset ${JSON.stringify(values['clock-offset'])} is not a number of ms (0 or more)`);
  await sendMirror({
    endpoint: common.endpoint,
    dialect: common.dialect,
    file: file!,
    framesPerSecond: values.fps === undefined ? undefined : positiveNumber('fps', values.fps, 30, 240),
    bind: values.bind,
    clockOffsetMs,
    holdMs: values.hold === undefined ? 0 : positiveNumber('hold', values.hold, 0, 3600) * 1000,
    userAgent: `vendorplay-send/${VERSION}`,
    say,
  });
}

/** `audio HOST:PORT FILE`: the codec, the path, the latency and the sender's clock. */
async function runAudio(common: Common, file: string, values: Options): Promise<void> {
  const codec = values.codec ?? 'alac';
  if (codec !== 'alac' && codec !== 'pcm') throw new UsageError(`--codec ${JSON.stringify(codec)}: alac or pcm`);
  const audioPath = values.path ?? 'auto';
  if (audioPath !== 'auto' && audioPath !== 'classic' && audioPath !== 'session') throw new UsageError(`--path ${JSON.stringify(audioPath)}: classic or session`);
  const latencyFrames = values.latency === undefined ? 22050 : numberIn('latency', values.latency, 352, 10 * 44100);
  if (!Number.isInteger(latencyFrames)) throw new UsageError(`--latency ${values.latency}: a whole number of frames`);
  await sendAudio({
    endpoint: common.endpoint,
    dialect: common.dialect,
    headers: common.headers,
    file,
    codec,
    path: audioPath as AudioPath,
    latencyFrames,
    startDelayMs: values['start-delay'] === undefined ? 0 : numberIn('start-delay', values['start-delay'], 0, 60_000),
    volumeDb: values.volume === undefined ? 0 : numberIn('volume', values.volume, -144, 0),
    clockPpm: values['clock-ppm'] === undefined ? 0 : numberIn('clock-ppm', values['clock-ppm'], -100_000, 100_000),
    stopAfterMs: stopAfterMs(values),
    say,
  });
}

/** --stop-after SECONDS, in ms. */
function stopAfterMs(values: Options): number | undefined {
  return values['stop-after'] === undefined ? undefined : positiveNumber('stop-after', values['stop-after'], 0, 86_400) * 1000;
}

async function run(command: Command, target: string | undefined, values: Options, common: Common): Promise<void> {
  const video: VideoCommon = { ...common, say, expectOk };
  switch (command) {
    case 'mirror':
      return runMirror(common, target, values);
    case 'audio':
      return runAudio(common, target!, values);
    case 'photo':
      return sendPhoto(common, target!, values.transition);
    case 'pair':
      if (values.pin === '') throw new UsageError('--pin: empty');
      return pair({ endpoint: common.endpoint, headers: common.headers, pin: values.pin, say });
    case 'stop':
      return sendStop(common);
    case 'play':
      if (values.start !== undefined && values['start-seconds'] !== undefined) throw new UsageError('--start and --start-seconds: give one of them');
      return playVideo(video, {
        url: target!,
        startFraction: values.start === undefined ? undefined : numberIn('start', values.start, 0, 1),
        startSeconds: values['start-seconds'] === undefined ? undefined : numberIn('start-seconds', values['start-seconds'], 0, 86_400 * 7),
        stopAfterMs: stopAfterMs(values),
        setup: setupMode(values.setup),
      });
    case 'scrub':
      return scrub(video, target === undefined ? undefined : numberIn('scrub: SECONDS', target, 0, 86_400 * 365, false));
    case 'rate':
      return rate(video, numberIn('rate: VALUE', target!, -64, 64, false));
    case 'info':
      return info(video);
    case 'slideshow': {
      const connections = positiveNumber('connections', values.connections, 3, 3);
      if (!Number.isInteger(connections)) throw new UsageError('--connections must be 1, 2 or 3');
      return playSlideshow(common, {
        dir: target!,
        duration: positiveNumber('duration', values.duration, 3, 3600),
        theme: values.theme ?? 'Dissolve',
        connections,
        stopAfterMs: stopAfterMs(values),
      });
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = readOptions(argv);
  if (values.help) {
    process.stdout.write(senderHelp());
    return 0;
  }
  if (values.version) {
    process.stdout.write(`vendorplay-send ${VERSION}\n`);
    return 0;
  }
  const offline = OFFLINE_COMMANDS.find((name) => name === positionals[0]);
  if (offline) {
    await runOffline(offline, positionals, values);
    return 0;
  }
  const { command, address, target } = readPositionals(positionals);
  await run(command, target, values, commonSettings(command, address, values));
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`vendorplay-send: ${error.message} (see --help)\n`);
    process.exitCode = 2;
  } else if (error instanceof SendError) {
    process.stderr.write(`vendorplay-send: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
