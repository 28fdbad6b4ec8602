// A command's options as one table: each row is one option, and the parser (node:util parseArgs),
// the --help text, the config file reader and the man pages are all made from the rows, so an
// option is described once and the four cannot disagree.
//
// A row: `name` (the long option without --, and the config file's key), `argument` (the value's
// placeholder, e.g. PORT; none for a flag), `multiple` (repeatable: each use adds a value; in the
// config file, repeated keys), `short` (a one-letter alias), `default` (as shown to people; the
// code applies it), `help` (one paragraph, no line breaks: it is wrapped where it is shown),
// `section` (the heading it is listed under) and `inFile` (false: the command line only, e.g.
// --help; settable from the config file otherwise, where that file exists).

import type { ParseArgsConfig } from 'node:util';

export interface OptionRow {
  readonly name: string;
  readonly argument?: string;
  readonly multiple?: boolean;
  readonly short?: string;
  readonly default?: string;
  readonly help: string;
  readonly section: string;
  /** False: only on the command line (--help, --version, --config). */
  readonly inFile?: boolean;
}

/** The values parseArgs reads for a table: a string (or strings) per option with an argument, a boolean per flag. */
export type OptionValues<Rows extends readonly OptionRow[]> = {
  -readonly [Row in Rows[number] as Row['name']]?: Row extends { readonly argument: string } ? (Row extends { readonly multiple: true } ? string[] : string) : boolean;
};

/** The table as node:util parseArgs's `options`. */
export function parseArgsOptions(rows: readonly OptionRow[]): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const row of rows) {
    options[row.name] = {
      type: row.argument === undefined ? 'boolean' : 'string',
      ...(row.multiple && { multiple: true }),
      ...(row.short !== undefined && { short: row.short }),
    };
  }
  return options;
}

/** A row's help with its default, as one paragraph. */
export function describeRow(row: OptionRow): string {
  return row.default === undefined ? row.help : `${row.help} (default: ${row.default})`;
}

/** `-h, --help` or `--port PORT`: the option as it is typed. */
export function optionSynopsis(row: OptionRow): string {
  const long = `--${row.name}${row.argument === undefined ? '' : ` ${row.argument}`}`;
  return row.short === undefined ? long : `-${row.short}, ${long}`;
}

/** Words of `text` in lines of at most `width` characters, each after `indent` (the first after `first`). */
export function wrap(text: string, width: number, indent: string, first = indent): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Width of --help's lines, and the column the descriptions start at. */
export const HELP_WIDTH = 97;
const DESCRIPTION_COLUMN = 25;

/** The rows' --help lines, under their sections' headings in the table's order. */
export function optionsHelp(rows: readonly OptionRow[]): string {
  const indent = ' '.repeat(DESCRIPTION_COLUMN);
  const sections: string[] = [];
  for (const section of sectionsOf(rows)) {
    const lines = [`${section}:`];
    for (const row of rows.filter((candidate) => candidate.section === section)) {
      const synopsis = `  ${optionSynopsis(row)}`;
      // A synopsis too long for its column stands on its own line, the description below it.
      const fits = synopsis.length <= DESCRIPTION_COLUMN - 2;
      lines.push(fits ? wrap(describeRow(row), HELP_WIDTH, indent, synopsis.padEnd(DESCRIPTION_COLUMN)) : `${synopsis}\n${wrap(describeRow(row), HELP_WIDTH, indent)}`);
    }
    sections.push(lines.join('\n'));
  }
  return `${sections.join('\n\n')}\n`;
}

/** The sections of the table, in the order their first rows come. */
export function sectionsOf(rows: readonly OptionRow[]): string[] {
  return [...new Set(rows.map((row) => row.section))];
}
