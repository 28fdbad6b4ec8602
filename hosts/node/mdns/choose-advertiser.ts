// Which advertiser publishes the services (--mdns): avahi-daemon when it runs, as UxPlay and
// shairport-sync use it, so that one responder owns UDP port 5353 on the machine; else our own
// responder (advertiser.ts, with its unicast answers). Said in the log either way.

import type { MdnsAdvertiser, MdnsAdvertiserOptions } from './advertiser';

/** --mdns's values: auto (avahi when it is on the system bus, else builtin), avahi, builtin. */
export const MDNS_MODES = ['auto', 'avahi', 'builtin'] as const;
export type MdnsMode = (typeof MDNS_MODES)[number];

export function isMdnsMode(text: string): text is MdnsMode {
  return (MDNS_MODES as readonly string[]).includes(text);
}

/** --mdns avahi and no avahi-daemon to be found: start-up stops, saying why. */
export class AvahiUnavailable extends Error {}

/**
 * The advertiser `mode` asks for. Loads only what it uses: the built-in responder's multicast
 * stack is not loaded beside avahi, nor the D-Bus client for --mdns builtin.
 */
export async function chooseAdvertiser(mode: MdnsMode, options: MdnsAdvertiserOptions): Promise<MdnsAdvertiser> {
  const { log } = options;
  let why = '--mdns builtin';
  if (mode !== 'builtin') {
    const { createAvahiAdvertiser, findAvahi } = await import('./avahi-advertiser');
    const found = await findAvahi();
    if ('bus' in found) {
      log('info', `mdns: advertising through avahi-daemon (${found.version}, on the D-Bus system bus); the built-in responder does not run`);
      if (options.unicast === false) log('info', 'mdns: --no-mdns-unicast has no effect beside avahi-daemon, which answers queries to port 5353 itself');
      return createAvahiAdvertiser(found.bus, { interfaces: options.interfaces, log, shutdownTimeoutMs: options.shutdownTimeoutMs });
    }
    if (mode === 'avahi') throw new AvahiUnavailable(`--mdns avahi: ${found.absent}; start avahi-daemon, or choose --mdns builtin`);
    why = found.absent;
  }
  log('info', `mdns: advertising with the built-in responder (${why})`);
  const { createMdnsAdvertiser } = await import('./advertiser');
  return createMdnsAdvertiser(options);
}
