// The options of `vendorplay-receiver`, one row each: --help, the parser, the config file and the
// man page are made from this table (option-table.ts says what a row holds).
//
// To add an option: add a row here (in the section it belongs to), then read its value in
// command-line.ts's parseCommandLine (values['your-option'], typed from this table) into the
// CommandLine or the receiver's configuration, checking it there with a ConfigError of one line.
// The config file takes it as `your-option = value` with no more work; the man page and --help
// show it at the next build.

import { RECEIVER_NAME_MAX } from '../../src/discovery/dnssd-names';
import { CONTROL_PORT } from '../../src/discovery/services';
import { MIRROR_PORT } from '../../src/mirror';
import { NTP_RECEIVER_PORT } from '../../src/timing';
import { CONFIG_FILE_NAME, SYSTEM_CONFIG_FILE } from './config-file';
import { PROFILES } from '../../src/receiver';
import type { OptionRow } from './option-table';
import { HOOK_TIMEOUT_MS, MAX_RUNNING_HOOKS } from './event-hooks';

/** The screen page's port when neither --screen-port nor --port is given. */
export const SCREEN_PORT = 7080;

/**
 * Every other listener's offset from --port. Given --port N, each is N + offset; given --port 0,
 * each is a free one; given neither, each takes its default (DEFAULT_PORTS). The fixed defaults
 * are 7000 + their offsets, so --port 7000 moves nothing of them.
 */
export const PORT_OFFSETS = {
  'event-port': 1,
  'audio-port': 2,
  'audio-control-port': 3,
  'timing-port': 4,
  'ntp-port': NTP_RECEIVER_PORT - CONTROL_PORT,
  'screen-port': SCREEN_PORT - CONTROL_PORT,
  'mirror-port': MIRROR_PORT - CONTROL_PORT,
} as const;
export type PortOption = keyof typeof PORT_OFFSETS;

/**
 * The ports without --port: the advertised and mirroring ones where the spec puts them; the ones
 * each SETUP answer names free (any serves unless a firewall must name it).
 */
export const DEFAULT_PORTS: Record<PortOption, number> = {
  'event-port': 0,
  'audio-port': 0,
  'audio-control-port': 0,
  'timing-port': 0,
  'ntp-port': NTP_RECEIVER_PORT,
  'screen-port': SCREEN_PORT,
  'mirror-port': MIRROR_PORT,
};

/** `7100; with --port N, N+100` or `a free one; with --port N, N+1`. */
function portDefault(option: PortOption): string {
  const fixed = DEFAULT_PORTS[option];
  return `${fixed === 0 ? 'a free one' : fixed}; with --port N, N+${PORT_OFFSETS[option]}`;
}

/** The offsets as help text: `+1 events, +2 audio...`. */
function portOffsetsText(): string {
  return (Object.entries(PORT_OFFSETS) as [PortOption, number][]).map(([option, offset]) => `+${offset} --${option}`).join(', ');
}

const PROFILE_NAMES = Object.values(PROFILES)
  .map((profile) => profile.name)
  .join(', ');

export const RECEIVER_OPTIONS = [
  // Who the receiver is and who may use it.
  { section: 'Identity and pairing', name: 'name', argument: 'NAME', default: '"Receiver"', help: `name shown to senders, at most ${RECEIVER_NAME_MAX} bytes of UTF-8` },
  { section: 'Identity and pairing', name: 'device-id', argument: 'MAC', default: 'a random one, kept in the data directory', help: 'device identifier' },
  { section: 'Identity and pairing', name: 'data-dir', argument: 'DIR', default: '~/.local/share/vendorplay-receiver', help: 'where the receiver keeps its identity and pairings' },
  {
    section: 'Identity and pairing',
    name: 'pin',
    argument: 'DIGITS|random',
    default: "3939, the spec's public code; random with --pin-required",
    help: 'pairing PIN, 4 to 8 digits, or random: a new one for each pairing, shown on the screen and in the log',
  },
  { section: 'Identity and pairing', name: 'pin-required', help: 'senders must pair with the PIN before anything else (flag PINRequired); transient pairing (always with the public 3939) is refused' },
  { section: 'Identity and pairing', name: 'password', argument: 'TEXT', default: 'none', help: 'password senders must give; senders pair with it' },
  { section: 'Identity and pairing', name: 'auth-key', argument: 'FILE', help: 'device RSA-1024 private key (PEM) for certificate authentication in pair-setup and POST /auth-setup; needs --auth-certificate' },
  { section: 'Identity and pairing', name: 'auth-certificate', argument: 'FILE', help: 'the device certificate (DER or PEM) that goes with --auth-key' },
  {
    section: 'Identity and pairing',
    name: 'allow',
    argument: 'WHO',
    multiple: true,
    default: 'every sender',
    help: "serve only these senders (repeatable, or a comma list): an address, a CIDR block (192.168.1.0/24) or a device id (58:55:CA:1A:E2:88, a DACP-ID, a pairing identifier); see the README's Access lists",
  },
  { section: 'Identity and pairing', name: 'block', argument: 'WHO', multiple: true, help: 'refuse these senders (repeatable, or a comma list; entries as --allow); block wins over allow' },

  // Where it listens: --port and the others at their offsets from it (PORT_OFFSETS).
  {
    section: 'Ports',
    name: 'port',
    argument: 'PORT',
    default: `${CONTROL_PORT}`,
    help: `HTTP/RTSP port that is advertised, and the base of the others: given, it moves every listener to its offset from PORT (${portOffsetsText()}); 0 makes every one a free one. A port given on its own wins`,
  },
  {
    section: 'Ports',
    name: 'mirror-port',
    argument: 'PORT',
    default: portDefault('mirror-port'),
    help: 'screen mirroring port; served when the receiver mirrors: a profile with mirroring and the screen page (which decodes it), or --record FILE; start-up stops if it is taken',
  },
  { section: 'Ports', name: 'ntp-port', argument: 'PORT', default: portDefault('ntp-port'), help: "local UDP port of mirroring's NTP client" },
  {
    section: 'Ports',
    name: 'event-port',
    argument: 'PORT',
    default: portDefault('event-port'),
    help: "port of the event listener senders' sessions connect to (each session's SETUP answer names it); start-up stops if it is taken",
  },
  {
    section: 'Ports',
    name: 'timing-port',
    argument: 'PORT',
    default: portDefault('timing-port'),
    help: "local UDP port of the sessions' clock (RAOP timing, named in each SETUP answer); start-up stops if it is taken",
  },
  {
    section: 'Ports',
    name: 'audio-port',
    argument: 'PORT',
    default: portDefault('audio-port'),
    help: 'local UDP port that realtime audio (RTP) arrives on (named in each audio SETUP answer); start-up stops if it is taken',
  },
  {
    section: 'Ports',
    name: 'audio-control-port',
    argument: 'PORT',
    default: portDefault('audio-control-port'),
    help: "local UDP port of the audio stream's sync packets, resent packets and retransmit requests (named alike)",
  },
  {
    section: 'Ports',
    name: 'screen-port',
    argument: 'PORT',
    default: portDefault('screen-port'),
    help: 'virtual screen web page port, on 127.0.0.1 and ::1 only; start-up stops if it is taken',
  },

  // How it is found and what it may reach.
  { section: 'Network', name: 'interface', argument: 'NAME', multiple: true, default: 'all; mDNS also answers on loopback', help: 'network interface to listen and advertise on; repeatable' },
  {
    section: 'Network',
    name: 'mdns',
    argument: 'auto|avahi|builtin',
    default: 'auto: avahi-daemon when it is on the D-Bus system bus, else the built-in responder',
    help: 'who advertises the receiver by multicast DNS: avahi-daemon (as UxPlay and shairport-sync do; it owns port 5353 and answers every query) or the built-in responder; with avahi and none running, start-up stops',
  },
  { section: 'Network', name: 'no-mdns', help: 'do not advertise by multicast DNS' },
  {
    section: 'Network',
    name: 'no-mdns-unicast',
    help: "do not answer DNS queries sent straight to this host's port 5353 (an avahi on the same host answers them for its own services otherwise)",
  },
  {
    section: 'Network',
    name: 'media-allow',
    argument: 'CIDR',
    multiple: true,
    help: 'also fetch video from this address range (repeatable, or a comma list: 127.0.0.0/8,::1). Video URLs are fetched by the receiver, which never fetches from loopback, link-local, multicast or its own addresses; private LAN ranges (10/8, 172.16/12, 192.168/16, fc00::/7) are allowed (a NAS on the home network)',
  },
  { section: 'Network', name: 'media-block-private', help: 'do not fetch video from private LAN ranges either' },

  // What it shows and plays.
  { section: 'Screen and sound', name: 'profile', argument: 'NAME', default: 'desktop', help: PROFILE_NAMES },
  { section: 'Screen and sound', name: 'no-screen', help: 'no virtual screen: a receiver without a display (no photos)' },
  {
    section: 'Screen and sound',
    name: 'mirror-size',
    argument: 'WxH@HZ',
    default: '1920x1080@60',
    help: 'the display screen mirroring is sent for; the screen page decodes it with WebCodecs (H.264) and scales it to the window',
  },
  {
    section: 'Screen and sound',
    name: 'audio-out',
    argument: 'DEVICE',
    default: 'default, where aplay is installed; without a sound device each stream says so in one line',
    help: 'ALSA device realtime audio plays on, through aplay (alsa-utils): default, hw:0, plughw:1,0...; none: no sound',
  },
  {
    section: 'Screen and sound',
    name: 'record',
    argument: 'FILE',
    help: 'write mirrored video to FILE as an H.264 Annex B stream (ffmpeg reads it with -f h264), as well as showing it; offers screen mirroring (feature bit 7) even with --no-screen',
  },
  {
    section: 'Screen and sound',
    name: 'record-audio',
    argument: 'FILE',
    help: 'write realtime audio to FILE as a WAV (16-bit PCM, every stream of the run appended), as well as playing it; offers audio even without aplay',
  },

  // The rest.
  { section: 'Behaviour', name: 'dialect', argument: 'NAME', default: 'vendor', help: "vendor (the spec's names) or apple (real senders' names)" },
  { section: 'Behaviour', name: 'log-level', argument: 'LEVEL', default: 'info', help: 'error, warn, info or debug; below debug, long values (TXT records, URLs) are cut' },
  { section: 'Behaviour', name: 'log-format', argument: 'FORMAT', default: 'text', help: 'text (TIME LEVEL message) or json (one {time, level, message} object a line), for the log and the start-up lines alike' },
  {
    section: 'Behaviour',
    name: 'on-event',
    argument: 'COMMAND',
    help: "run COMMAND (/bin/sh -c) on each event (a session, a photo, video, mirroring, audio, pairing) with the event in VENDORPLAY_* variables, without waiting for it; see the README's Integration hooks",
  },
  { section: 'Behaviour', name: 'on-event-max-running', argument: 'N', default: String(MAX_RUNNING_HOOKS), help: 'at most N --on-event commands at once; events past them are dropped and counted in the log' },
  { section: 'Behaviour', name: 'on-event-timeout', argument: 'SECONDS', default: String(HOOK_TIMEOUT_MS / 1000), help: 'an --on-event command still running after SECONDS is killed with what it started' },
  { section: 'Behaviour', name: 'limit', argument: 'NAME=VALUE', multiple: true, help: 'set a limit (repeatable); the names and their defaults are listed under Limits' },
  { section: 'Behaviour', name: 'activity-signal', help: 'for tests: SIGUSR2 toggles the activity idle <-> receiving video' },
  { section: 'Behaviour', name: 'config', argument: 'FILE', inFile: false, default: `$XDG_CONFIG_HOME/vendorplay/${CONFIG_FILE_NAME} (~/.config without XDG_CONFIG_HOME), else ${SYSTEM_CONFIG_FILE}: the first that exists`, help: 'read options from FILE, one KEY = VALUE a line (KEY: a long option without --); the command line wins' },
  { section: 'Behaviour', name: 'version', short: 'V', inFile: false, help: 'print the version and exit' },
  { section: 'Behaviour', name: 'help', short: 'h', inFile: false, help: 'show this help' },
] as const satisfies readonly OptionRow[];
