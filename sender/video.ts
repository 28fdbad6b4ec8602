// `vendorplay-send`'s video commands (spec 4.2, 6): play a URL and print the video events as they
// come, scrub, change the rate, show the playback information, all as a sender does them.

import { utf8Encode } from '../src/bytes';
import { EVENT_PURPOSE, HEADER, type ResponseHead } from '../src/http';
import { TEXT_PARAMETERS, decodeParameters, decodePlist, encodeBinaryPlist, isPlistDict, real, type PlistDict, type PlistValue } from '../src/plist';
import { completion, ControlConnection, eventServer, ReverseChannel, SendError, describeEndpoint, type CommonHeaders, type Endpoint, type Message } from './wire';
import { SenderSession, takesSessions } from './session';
import type { Dialect } from '../src/dialect';

/** What the video commands need from the command line. */
export interface VideoCommon {
  readonly endpoint: Endpoint;
  readonly dialect: Dialect;
  readonly sessionId: string | undefined;
  readonly headers: CommonHeaders;
  readonly say: (line: string) => void;
  /** Throws SendError naming the request when the status is not 200. */
  readonly expectOk: (what: string, response: Message<ResponseHead>) => void;
}

interface PlayOptions {
  readonly url: string;
  /** spec 4.2 Start-Position: a fraction 0..1 (sent as text/parameters). */
  readonly startFraction: number | undefined;
  /** Start-Position-Seconds, the seconds form real senders send (a binary plist). */
  readonly startSeconds: number | undefined;
  /** Send POST /stop by itself after this long; undefined: until the video ends or Ctrl-C. */
  readonly stopAfterMs: number | undefined;
  /**
   * Open a session first (RTSP SETUP, as current senders do): `auto` when the receiver has
   * feature bit 38 (its GET /info says), `ntp` or `none` (its timing protocol), `off` never.
   */
  readonly setup: SetupMode;
}

export type SetupMode = 'auto' | 'ntp' | 'none' | 'off';

/** Whether to open a session, and with which timing protocol. */
async function sessionTiming(control: ControlConnection, mode: SetupMode): Promise<'NTP' | 'None' | undefined> {
  if (mode === 'off') return undefined;
  if (mode === 'ntp') return 'NTP';
  if (mode === 'none') return 'None';
  return (await takesSessions(control)) ? 'NTP' : undefined;
}

function seconds(value: number): string {
  return `${value.toFixed(3)} s`;
}

async function withControl<T>(common: VideoCommon, run: (control: ControlConnection) => Promise<T>): Promise<T> {
  const control = await ControlConnection.open(common.endpoint, common.headers);
  try {
    return await run(control);
  } finally {
    control.close();
  }
}

/**
 * `play URL`: opens the event connection (spec 1.6), POST /play, then prints each video event.
 * Ends when the receiver reports `stopped` (the video ended or was stopped; a video that failed
 * throws SendError with the reason from the receiver's error log), or sends POST /stop on Ctrl-C
 * or after --stop-after.
 */
export async function playVideo(common: VideoCommon, options: PlayOptions): Promise<void> {
  const { dialect, endpoint, say } = common;
  const where = describeEndpoint(endpoint);
  const control = await ControlConnection.open(endpoint, common.headers);
  let finished = false;
  // Awaited only once the video plays; a connection lost before that is reported by the throw.
  const { done, finish } = completion();
  let events: ReverseChannel | undefined;
  let session: SenderSession | undefined;
  /** Closes both connections and ends the command (once: closing them calls back here). */
  const end = (why?: string, error?: Error) => {
    if (finished) return;
    finished = true;
    if (why) say(why);
    events?.close();
    // Closing the connection ends the session on the receiver too (pyatv's stop() does that).
    void session?.close(false);
    control.close();
    finish(error);
  };
  control.onClose = (reason) => end(undefined, new SendError(`control connection to ${where}: ${reason}`));

  let stopRequested = false;
  /** Error-log entries (by cs-guid) there before this video: not about it. */
  let earlierErrors = new Set<string>();
  const errorLog = async (): Promise<PlistDict[]> => {
    const response = await control.request('POST', '/getProperty?playbackErrorLog', [[HEADER.contentType, dialect.mime.plistBinary]], new Uint8Array(0));
    const reply = response.head.status === 200 ? decodePlist(response.body) : undefined;
    return isPlistDict(reply) && Array.isArray(reply.value) ? reply.value.filter(isPlistDict) : [];
  };
  /** `stopped` came: says why when the receiver's error log has a new entry for this video. */
  const over = async (): Promise<void> => {
    if (finished) return;
    if (stopRequested) return end();
    try {
      const mine = (await errorLog()).filter((entry) => entry.uri === options.url && !earlierErrors.has(String(entry['cs-guid'])));
      const last = mine.at(-1);
      // A video that failed fails the command (exit status 1, the reason on stderr).
      if (last) end(undefined, new SendError(`the video failed: ${String(last.domain)} ${String(last.status)}: ${String(last.comment)}`));
      else end('the receiver stopped the video');
    } catch {
      end('the receiver stopped the video');
    }
  };
  const serveEvent = eventServer(say, (event) => {
    say(`event: ${String(event.category)} ${String(event.state)}`);
    // The video is over (ended, failed, stopped here or by someone else): so is the command.
    if (event.category === 'video' && event.state === 'stopped') setTimeout(() => void over(), 0);
  });

  try {
    const timing = await sessionTiming(control, options.setup);
    if (timing) session = await SenderSession.open(control, { dialect, say, timingProtocol: timing });
    events = await ReverseChannel.open({ endpoint, common: common.headers, purposeHeader: dialect.headers.Purpose, purpose: EVENT_PURPOSE, serve: serveEvent });
    events.onClose = (reason) => end(undefined, new SendError(`event connection to ${where}: ${reason}`));
    // A receiver without the error log (or an older one) is fine: the failure is then not explained.
    earlierErrors = new Set((await errorLog().catch(() => [])).map((entry) => String(entry['cs-guid'])));
    let body: Uint8Array;
    let contentType: string;
    if (options.startSeconds !== undefined) {
      // The seconds form exists only in the binary plist real senders send.
      body = encodeBinaryPlist({ 'Content-Location': options.url, 'Start-Position-Seconds': real(options.startSeconds) });
      contentType = dialect.mime.plistBinary;
    } else {
      body = utf8Encode(`Content-Location: ${options.url}\nStart-Position: ${(options.startFraction ?? 0).toFixed(6)}\n`);
      contentType = TEXT_PARAMETERS;
    }
    const from = options.startSeconds !== undefined ? seconds(options.startSeconds) : `${((options.startFraction ?? 0) * 100).toFixed(1)}%`;
    say(`playing ${options.url} on ${where} from ${from}, session ${common.sessionId ?? '(none)'}`);
    common.expectOk('POST /play', await control.request('POST', '/play', [[HEADER.contentType, contentType]], body));
  } catch (error) {
    end();
    throw error;
  }

  const stop = async (why: string): Promise<void> => {
    if (finished || stopRequested) return;
    stopRequested = true;
    say(`stopping (${why})`);
    try {
      common.expectOk('POST /stop', await control.request('POST', '/stop'));
      // The session ends with the video: TEARDOWN, as senders do when they are done.
      await session?.close();
      // The receiver says stopped on the event connection; wait for it a little.
      setTimeout(() => end(), 2000).unref();
    } catch (error) {
      end(undefined, error as Error);
    }
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (options.stopAfterMs !== undefined) setTimeout(() => void stop(`--stop-after ${options.stopAfterMs! / 1000}`), options.stopAfterMs).unref();
  await done;
}

/** `scrub`: GET /scrub (where the video is), or POST /scrub?position=SECONDS (move it). */
export async function scrub(common: VideoCommon, position: number | undefined): Promise<void> {
  await withControl(common, async (control) => {
    if (position === undefined) {
      const response = await control.request('GET', '/scrub');
      common.expectOk('GET /scrub', response);
      const lines = decodeParameters(response.body);
      common.say(`position ${seconds(Number(lines.get('position')))} of ${seconds(Number(lines.get('duration')))}`);
      return;
    }
    common.expectOk('POST /scrub', await control.request('POST', `/scrub?position=${position.toFixed(6)}`));
    common.say(`moved to ${seconds(position)}`);
  });
}

/** `rate VALUE`: POST /rate?value= (0 pauses, 1 plays). */
export async function rate(common: VideoCommon, value: number): Promise<void> {
  await withControl(common, async (control) => {
    common.expectOk('POST /rate', await control.request('POST', `/rate?value=${value.toFixed(6)}`));
    common.say(value === 0 ? 'paused' : `rate ${value}`);
  });
}

function number(value: PlistValue | undefined): number {
  return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : NaN;
}

function yesNo(value: PlistValue | undefined): string {
  return value === true ? 'yes' : 'no';
}

function ranges(value: PlistValue | undefined): string {
  if (!Array.isArray(value) || value.length === 0) return 'none';
  return value
    .map((range) => {
      if (!isPlistDict(range)) return '?';
      const start = number(range.start);
      return `${start.toFixed(1)}-${(start + number(range.duration)).toFixed(1)} s`;
    })
    .join(', ');
}

/** The playback information (spec 2.9) as lines a person reads. */
function describePlaybackInfo(info: PlistDict): string[] {
  if (info.duration === undefined) return [`nothing loaded (ready to play: ${yesNo(info.readyToPlay)})`];
  return [
    `ready to play: ${yesNo(info.readyToPlay)}`,
    `position: ${seconds(number(info.position))} of ${seconds(number(info.duration))}`,
    `rate: ${number(info.rate)}`,
    `buffer: empty ${yesNo(info.playbackBufferEmpty)}, full ${yesNo(info.playbackBufferFull)}, likely to keep up ${yesNo(info.playbackLikelyToKeepUp)}`,
    `loaded: ${ranges(info.loadedTimeRanges)}`,
    `seekable: ${ranges(info.seekableTimeRanges)}`,
  ];
}

/** `info`: GET /playback-info, printed readably. */
export async function info(common: VideoCommon): Promise<void> {
  await withControl(common, async (control) => {
    const response = await control.request('GET', '/playback-info');
    common.expectOk('GET /playback-info', response);
    const body = decodePlist(response.body);
    if (!isPlistDict(body)) throw new SendError('GET /playback-info: the answer is not a dictionary');
    for (const line of describePlaybackInfo(body)) common.say(line);
  });
}
