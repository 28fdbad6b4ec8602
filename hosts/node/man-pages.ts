// The two commands' man pages (roff, man(7) macros), made from the options tables: every row is
// an entry of OPTIONS under its section's heading. scripts/man.mjs bundles this file and writes
// the pages to man/; the sender's usage and commands come from its built --help, which holds them.

import { limitsHelp } from './command-line';
import { CONFIG_FILE_NAME, SYSTEM_CONFIG_FILE } from './config-file';
import { describeRow, sectionsOf, type OptionRow } from './option-table';
import { PORT_OFFSETS, RECEIVER_OPTIONS } from './receiver-options';
import { SENDER_OPTIONS } from '../../sender/options';

/** Text as roff reads it: backslashes escaped, hyphens as \-, no line starting with a control character. */
function roff(text: string): string {
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
function optionsSection(rows: readonly OptionRow[]): string {
  return sectionsOf(rows)
    .map((section) => [`.SS ${roff(section)}`, ...rows.filter((row) => row.section === section).map(optionEntry)].join('\n'))
    .join('\n');
}

/** Preformatted lines (a block of --help kept as it is). */
function verbatim(text: string): string {
  return `.nf\n${roff(text.replace(/\s+$/, ''))}\n.fi`;
}

function header(command: string, version: string, summary: string): string {
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

/** The sender's page: `help` is its built --help, whose usage and commands come before its options. */
export function senderManPage(version: string, help: string): string {
  const usage = /^Usage:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? '';
  const commands = /^Commands:\n([\s\S]*?)\n\n/m.exec(help)?.[1] ?? '';
  if (!usage || !commands) throw new Error('vendorplay-send --help has no Usage: or Commands: block');
  return `${header('vendorplay-send', version, 'send photos, slideshows, video, a screen or audio to a receiver of the wireless media protocol')}
.SH SYNOPSIS
${verbatim(usage.replace(/^ {2}/gm, ''))}
.SH DESCRIPTION
.B vendorplay-send
sends to a receiver (this project's, or another of the protocol) at \\fIHOST\\fR:\\fIPORT\\fR, for
trying a receiver by hand and for tests.
.SS Commands
${verbatim(commands)}
.SH OPTIONS
${optionsSection(SENDER_OPTIONS)}
.SH FILES
.TP
.I $XDG_CONFIG_HOME/vendorplay/sender.json
the pairings the sender keeps (\\fI~/.config/vendorplay/sender.json\\fR)
.SH EXIT STATUS
0 on success; 1 when the receiver refused or could not be reached; 2 for a wrong command line.
.SH EXAMPLES
.TP
.B vendorplay-send photo 192.168.1.20:7000 picture.jpg
shows a picture
.TP
.B vendorplay-send play 192.168.1.20:7000 https://example.com/video.mp4
plays a video by URL and prints its events until it ends
.SH SEE ALSO
.BR vendorplay-receiver (1)
`;
}
