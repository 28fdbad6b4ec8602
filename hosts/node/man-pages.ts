// The receiver's man page (roff, man(7) macros), made from its options table: every row is an
// entry of OPTIONS under its section's heading; and the pieces a page is made of, which the
// sender's page (sender/man-page.ts) uses too. scripts/man.mjs bundles both and writes the pages
// to man/.

import { limitsHelp } from './command-line';
import { CONFIG_FILE_NAME, SYSTEM_CONFIG_FILE } from './config-file';
import { describeRow, sectionsOf, type OptionRow } from './option-table';
import { PORT_OFFSETS, RECEIVER_OPTIONS } from './receiver-options';

/** Text as roff reads it: backslashes escaped, hyphens as \-, no line starting with a control character. */
export function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/** One option as a tagged paragraph: `-h, --help` or `--port PORT`, then its help and default. */
function optionEntry(row: OptionRow): string {
  const long = `\\fB\\-\\-${roff(row.name)}\\fR${row.argument === undefined ? '' : ` \\fI${roff(row.argument)}\\fR`}`;
  const tag = row.short === undefined ? long : `\\fB\\-${row.short}\\fR, ${long}`;
  return `.TP\n${tag}\n${roff(describeRow(row))}${row.multiple ? ' Repeatable.' : ''}`;
}

/** The OPTIONS section: a subsection per section of the table, in its order. */
export function optionsSection(rows: readonly OptionRow[]): string {
  return sectionsOf(rows)
    .map((section) => [`.SS ${roff(section)}`, ...rows.filter((row) => row.section === section).map(optionEntry)].join('\n'))
    .join('\n');
}

/** Preformatted lines (a block of --help kept as it is). */
export function verbatim(text: string): string {
  return `.nf\n${roff(text.replace(/\s+$/, ''))}\n.fi`;
}

/** The page's title line and NAME section. */
export function header(command: string, version: string, summary: string): string {
  return `.\\" Made by scripts/man.mjs from the options table; edit the table, not this file.\n.TH ${command.toUpperCase()} 1 "" "${command} ${version}" "User Commands"\n.SH NAME\n${command} \\- ${roff(summary)}`;
}

export function receiverManPage(version: string): string {
  const offsets = Object.entries(PORT_OFFSETS)
    .map(([option, offset]) => `.TP\n\\fB\\-\\-${roff(option)}\\fR\nN+${offset}`)
    .join('\n');
  return `${header('vendorplay-receiver', version, 'a receiver for the wireless media protocol (photos, slideshows, video, screen mirroring, audio)')}
.SH SYNOPSIS
.B vendorplay-receiver
[\\fIoptions\\fR]
.br
.B vendorplay-receiver pairings
\\fBlist\\fR|\\fBremove\\fR \\fIID\\fR|\\fBclear\\fR|\\fBreset\\-tries\\fR [\\fB\\-\\-data\\-dir\\fR \\fIDIR\\fR]
.SH DESCRIPTION
.B vendorplay-receiver
makes this computer a receiver that senders on the network find by multicast DNS and send
photos, slideshows, videos, their screen and audio to. Pictures, video and the mirrored screen
are shown on a virtual screen: a web page served on loopback that a browser shows.
.PP
The second form lists or removes the paired senders kept in the data directory, or resets its
count of wrong PINs; the receiver need not run.
.PP
Options come from the command line and from a configuration file (see
.BR "CONFIGURATION FILE" );
the command line wins, key by key.
.SH OPTIONS
${optionsSection(RECEIVER_OPTIONS)}
.SS Limits
${verbatim(limitsHelp())}
.SH PORTS
\\fB\\-\\-port\\fR \\fIN\\fR moves every listener: the HTTP/RTSP port is N and the others are at
these offsets from it (a port given with its own option wins; \\fB\\-\\-port 0\\fR makes every
one a free one). Without \\fB\\-\\-port\\fR, 7000, 7011, 7080 and 7100, and free ports for those
each session's SETUP answer names.
${offsets}
.SH CONFIGURATION FILE
Read from the file \\fB\\-\\-config\\fR names; without it, from the first of
\\fI$XDG_CONFIG_HOME/vendorplay/${CONFIG_FILE_NAME}\\fR (\\fI~/.config\\fR when XDG_CONFIG_HOME is not
set) and \\fI${roff(SYSTEM_CONFIG_FILE)}\\fR that exists. One \\fIkey\\fR = \\fIvalue\\fR a line; the keys
are the long options without \\-\\-; a line whose first character is # is a comment; a flag takes
\\fBtrue\\fR or \\fBfalse\\fR; a repeatable option takes its key once per value. An unknown key or a
bad value stops start-up with one line naming the file, the line and the key (exit status 2).
The log says at start which file was read.
.SH FILES
.TP
.I $XDG_CONFIG_HOME/vendorplay/${CONFIG_FILE_NAME}
the user's configuration file (\\fI~/.config/vendorplay/${CONFIG_FILE_NAME}\\fR)
.TP
.I ${roff(SYSTEM_CONFIG_FILE)}
the system's configuration file, read when the user has none
.TP
.I ~/.local/share/vendorplay\\-receiver
the data directory (\\fB\\-\\-data\\-dir\\fR): the receiver's identity, its pairings, its count of
wrong PINs; \\fI/var/lib/vendorplay\\fR under the system unit
.SH EXIT STATUS
0 when stopped by SIGINT or SIGTERM; 2 for a wrong option or configuration file; 1 when it cannot
start (a port taken, a data directory it cannot use).
.SH EXAMPLES
.TP
.B vendorplay-receiver \\-\\-name "Living room"
a receiver on the default ports, advertised on every interface
.TP
.B vendorplay-receiver \\-\\-port 8000 \\-\\-pin\\-required
every listener moved to 8000 and above; senders must pair with a PIN shown on the screen
.TP
.B vendorplay-receiver \\-\\-config /etc/vendorplay/${CONFIG_FILE_NAME}
the settings of that file, as the system unit starts it
.TP
.B vendorplay-receiver pairings list
the senders paired with this receiver
.SH SEE ALSO
.BR vendorplay-send (1),
.BR systemctl (1)
`;
}
