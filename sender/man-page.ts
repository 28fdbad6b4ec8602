// The sender's man page, made from its options table (sender/options.ts) and its built --help,
// whose usage and commands come before its options. scripts/man.mjs writes it to man/.

import { header, optionsSection, verbatim } from '../hosts/node/man-pages';
import { SENDER_OPTIONS } from './options';

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
