// The Node host's one shape of a log line, for the log (stderr) and the start-up lines (stdout)
// alike: `2026-11-21T23:50:00.000Z info  message`, or with --log-format json one object a line,
// `{"time":"2026-11-21T23:50:00.000Z","level":"info","message":"..."}`, for journald and log
// shippers. A line is always one line: a message's own line breaks are written as `\n`.
//
// Below debug, long values are cut (a TXT record, a media URL with its query, a peer's bytes):
// a person reading the log sees what happened and the first part of each value; --log-level debug
// keeps them whole.

import type { LogLevel } from '../../../src/platform';

/** The shapes a line can take (--log-format). */
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Below debug, a word (a run without spaces) longer than this is cut: URLs, keys, blobs. */
export const LONGEST_WORD = 120;
/** Below debug, a message longer than this is cut (after its words are). */
export const LONGEST_MESSAGE = 200;

const LONG_WORD = new RegExp(`\\S{${LONGEST_WORD + 1},}`, 'g');

/** The text of a cut: what is left out, counted in characters. */
function cut(text: string, keep: number): string {
  return `${text.slice(0, keep)}… (${text.length - keep} more)`;
}

/** `message` as the log at `threshold` keeps it: whole at debug, long words and long lines cut below. */
export function clipMessage(message: string, threshold: LogLevel): string {
  if (threshold === 'debug') return message;
  const words = message.replace(LONG_WORD, (word) => cut(word, LONGEST_WORD));
  return words.length > LONGEST_MESSAGE ? cut(words, LONGEST_MESSAGE) : words;
}

/** One line in `format`, without its line break. */
export function formatLogLine(format: LogFormat, time: Date, level: LogLevel, message: string): string {
  if (format === 'json') return JSON.stringify({ time: time.toISOString(), level, message });
  // A message's own line breaks would start lines of another shape: written as escapes instead.
  return `${time.toISOString()} ${level.padEnd(5)} ${message.replace(/\r?\n/g, '\\n')}`;
}
