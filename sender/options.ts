// The options of `vendorplay-send`, one row each: --help, the parser and the man page are made from
// this table (hosts/node/option-table.ts says what a row holds).
//
// To add an option: add a row here (in the section of the command it serves), then read it in
// main.ts (values['your-option'], typed from this table), checking it there with a UsageError of
// one line; --help and the man page show it at the next build.

import type { OptionRow } from '../hosts/node/option-table';

export const SENDER_OPTIONS = [
  { section: 'Photo and slideshow', name: 'transition', argument: 'NAME', default: 'none', help: 'photo transition, e.g. Dissolve' },
  { section: 'Photo and slideshow', name: 'duration', argument: 'SECONDS', default: '3', help: 'seconds per slide' },
  { section: 'Photo and slideshow', name: 'theme', argument: 'NAME', default: 'Dissolve', help: 'slideshow theme key, e.g. Dissolve, Cube' },
  { section: 'Photo and slideshow', name: 'connections', argument: 'N', default: '3', help: 'slideshow connections, 1 to 3' },

  { section: 'Video', name: 'start', argument: 'FRACTION', default: '0', help: 'play: where to start, 0 to 1 of the duration' },
  { section: 'Video', name: 'start-seconds', argument: 'S', help: 'play: where to start, in seconds (sent as Start-Position-Seconds in a binary plist, as real senders do)' },
  {
    section: 'Video',
    name: 'setup',
    argument: 'MODE',
    default: 'auto',
    help: "play: open a session first, as current senders do (RTSP SETUP, an event channel, RECORD, POST /feedback every 2 s, TEARDOWN at the end): auto (when the receiver's GET /info has feature bit 38), ntp, none (a session that keeps no clock), off (the older path, no session)",
  },

  { section: 'Mirroring', name: 'fps', argument: 'N', default: "the file's, or 30 for raw H.264", help: 'mirror: frames per second' },
  {
    section: 'Mirroring',
    name: 'bind',
    argument: 'ADDRESS',
    default: 'the one the connection gets',
    help: 'mirror: local address of the connection and the NTP server; senders side by side use 127.0.0.2, .3...',
  },
  { section: 'Mirroring', name: 'clock-offset', argument: 'MS', help: 'mirror: add MS to the clock served by NTP and to the timestamps' },
  { section: 'Mirroring', name: 'hold', argument: 'SECONDS', help: 'mirror: keep the session (heartbeats) this long after the last frame' },

  { section: 'Audio', name: 'codec', argument: 'NAME', default: 'alac', help: 'audio: alac (encoded here, 352 frames a packet) or pcm (L16)' },
  {
    section: 'Audio',
    name: 'path',
    argument: 'NAME',
    default: 'session when GET /info has feature bit 38',
    help: 'audio: session (a session SETUP, then a type 96 stream sealed with ChaCha20-Poly1305) or classic (ANNOUNCE, SETUP with a Transport, RECORD; unencrypted)',
  },
  { section: 'Audio', name: 'latency', argument: 'FRAMES', default: '22050, half a second', help: 'audio: how far behind the sender the receiver plays, in frames at 44100 Hz' },
  { section: 'Audio', name: 'start-delay', argument: 'MS', default: '0', help: 'audio: wait this long after RECORD before the first packet' },
  { section: 'Audio', name: 'volume', argument: 'DB', default: '0', help: 'audio: SET_PARAMETER volume, 0 (full) to -144 (silent); a negative number goes after =: --volume=-20' },
  {
    section: 'Audio',
    name: 'clock-ppm',
    argument: 'N',
    help: "audio: the sender's clock (pacing, sync packets, timing answers) runs N parts per million fast (negative: slow, --clock-ppm=-500) against this host's",
  },

  {
    section: 'Pairing',
    name: 'pin',
    argument: 'DIGITS',
    help: "pair: the receiver's PIN when it is known already (a fixed PIN, or the receiver's password); without it the receiver is asked to show one and the PIN is read from the terminal (or stdin)",
  },
  {
    section: 'Pairing',
    name: 'on-receiver',
    help: "unpair: the receiver removes this sender's pairing too (pair-verify, then Remove Pairing: an admin pairing may; not when it is the receiver's only admin and others are paired, since that would remove them all)",
  },
  {
    section: 'Pairing',
    name: 'no-pair',
    help: 'do not pair-verify, even with a receiver paired with (the connection stays unencrypted; a receiver that asks for a PIN refuses it)',
  },

  {
    section: 'Every command',
    name: 'stop-after',
    argument: 'SECONDS',
    default: 'run until Ctrl-C; play: until the video ends; audio: to the end of the file',
    help: 'slideshow, play, audio: stop by itself after this long',
  },
  { section: 'Every command', name: 'session', argument: 'UUID', default: 'a random one; stop: none, which stops whatever is shown', help: 'session id to use' },
  { section: 'Every command', name: 'dialect', argument: 'NAME', default: 'vendor', help: "vendor (the spec's header names) or apple" },
  { section: 'Every command', name: 'version', short: 'V', help: 'print the version and exit' },
  { section: 'Every command', name: 'help', short: 'h', help: 'show this help' },
] as const satisfies readonly OptionRow[];
