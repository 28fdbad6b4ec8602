// The receiver's config file: every option a row of the options table lets a file set, one
// `key = value` a line, read before the command line (which wins, key by key).
//
//   # a comment: a line whose first non-blank character is #
//   name = Living room
//   port = 7000
//   no-mdns = true
//   limit = maxConnections=64
//   limit = idleTimeoutMs=60000
//
// Keys are the long option names without `--`; a flag takes true or false; a repeatable option
// takes its key once per value. A value is the rest of the line after `=`, blanks at either end
// dropped (no quoting: `password = two words` is the password "two words", and a # inside a value
// is part of it). A key given on the command line replaces every value the file gives it.
//
// Where it is: --config FILE, else the first of $XDG_CONFIG_HOME/vendorplay/receiver.conf (~/.config
// when XDG_CONFIG_HOME is not set) and /etc/vendorplay/receiver.conf that exists, else none.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../src/receiver';
import type { OptionRow } from './option-table';

/** The config file's name in its folders. */
export const CONFIG_FILE_NAME = 'receiver.conf';
/** The system-wide config file, read when the user has none. */
export const SYSTEM_CONFIG_FILE = `/etc/vendorplay/${CONFIG_FILE_NAME}`;

/** The places a config file is looked for when --config is not given, in order. */
export function configFileCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const configHome = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return [path.join(configHome, 'vendorplay', CONFIG_FILE_NAME), SYSTEM_CONFIG_FILE];
}

/** One `key = value` of a file, with its line number (from 1). */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

/** A config file read and checked against the table: values as parseArgs would give them. */
export interface ConfigFile {
  readonly file: string;
  readonly values: Record<string, string | string[] | boolean>;
  readonly entries: readonly ConfigEntry[];
}

/** `FILE:LINE: key: problem`, the one line a mistake in the file is said in. */
export function configFileError(file: string, line: number, key: string | undefined, problem: string): ConfigError {
  return new ConfigError(`${file}:${line}: ${key === undefined ? '' : `${key}: `}${problem}`);
}

/** The lines of a config file as entries: comments and blank lines left out, the rest `key = value`. */
export function configEntries(file: string, text: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const equals = trimmed.indexOf('=');
    if (equals < 0) throw configFileError(file, line, undefined, `${JSON.stringify(trimmed.slice(0, 60))} is not KEY = VALUE`);
    const key = trimmed.slice(0, equals).trim();
    if (key === '') throw configFileError(file, line, undefined, 'a value with no key before its =');
    entries.push({ key, value: trimmed.slice(equals + 1).trim(), line });
  });
  return entries;
}

/**
 * A config file's entries checked against the options table: each key one the file may set, a
 * flag true or false, a key that is not repeatable given once. A value's own rules (a port, a
 * level) are checked where the command line's are; see `lineOf` to name its line.
 */
export function configValues(file: string, entries: readonly ConfigEntry[], rows: readonly OptionRow[]): ConfigFile {
  const values: Record<string, string | string[] | boolean> = {};
  const seen = new Map<string, number>();
  for (const { key, value, line } of entries) {
    const row = rows.find((candidate) => candidate.name === key);
    if (!row) throw configFileError(file, line, key, 'unknown key (the keys are the long options of --help, without --)');
    if (row.inFile === false) throw configFileError(file, line, key, 'only on the command line');
    const earlier = seen.get(key);
    if (earlier !== undefined && !row.multiple) throw configFileError(file, line, key, `given again (line ${earlier} gave it already)`);
    seen.set(key, line);
    if (row.argument === undefined) {
      if (value !== 'true' && value !== 'false') throw configFileError(file, line, key, `${JSON.stringify(value)} is not true or false`);
      if (value === 'true') values[key] = true;
    } else if (row.multiple) {
      values[key] = [...((values[key] as string[] | undefined) ?? []), value];
    } else {
      values[key] = value;
    }
  }
  return { file, values, entries };
}

/** Reads and checks a config file; a file that cannot be read is a ConfigError naming it. */
export function readConfigFile(file: string, rows: readonly OptionRow[]): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`config file ${file} cannot be read: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
  return configValues(file, configEntries(file, text), rows);
}

/** The config file to read: --config's, else the first candidate that exists, else none. */
export function findConfigFile(given: string | undefined, candidates: readonly string[] = configFileCandidates()): string | undefined {
  if (given !== undefined) return given;
  return candidates.find((candidate) => existsSync(candidate));
}

/** The line of the file that gave `key` its value `value` (for a repeatable key, the one with that value). */
export function lineOf(config: ConfigFile, key: string, value?: string): number | undefined {
  const lines = config.entries.filter((entry) => entry.key === key);
  return (lines.find((entry) => entry.value === value) ?? lines[0])?.line;
}
