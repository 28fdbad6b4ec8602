// The Advertiser port (src/platform.ts) on our own multicast DNS responder: the one portable
// driver between a host's UDP socket on 224.0.0.251:5353 and the sans-I/O MdnsResponder. Its
// deadlines go to the host's timer driver (pollTimeout / handleTimeout / onWake, as the
// receiver's); what happens is logged, and "advertising" only once a service is announced.

import type { Advertiser, Logger, RandomSource, ServiceRecord, TimeSource, UdpSocket } from '../../platform';
import { describeError } from '../../errors';
import { MdnsResponder, type MdnsEvent } from './mdns-responder';
import type { HostAddresses } from './mdns-records';

export interface MdnsAdvertiserOptions {
  /**
   * Bound by the host to port 5353 and joined to 224.0.0.251, with multicast loopback (so two
   * responders on one machine hear each other); its datagrams go to the responder.
   */
  readonly socket: UdpSocket;
  readonly time: TimeSource;
  readonly random: RandomSource;
  /** The receiver's name: the host name is made from it (`Living Room` -> `Living-Room.local`). */
  readonly name: string;
  /** The addresses the host name stands for (given by the host). */
  readonly addresses: HostAddresses;
  readonly log: Logger;
}

/** An Advertiser publishing by our own responder. Errors are logged, never thrown. */
export class MdnsAdvertiser implements Advertiser {
  /** Set by the timer driver: a deadline may have moved earlier. */
  onWake: () => void = () => {};
  private readonly responder: MdnsResponder;
  private stopped = false;

  constructor(private readonly options: MdnsAdvertiserOptions) {
    this.responder = new MdnsResponder({ name: options.name, addresses: options.addresses, random: options.random });
    options.socket.onPacket = (bytes, address, port) => {
      if (this.stopped) return;
      this.responder.receive(bytes, address, port, options.time.now());
      this.flush();
      // A query can set a deadline (shared answers wait 20-120 ms): the driver must poll again,
      // or those answers wait for whatever deadline was armed before (none, once announced).
      this.onWake();
    };
    options.log('debug', `mdns: responder on UDP port ${options.socket.localPort}, host ${this.responder.hostName}.local, addresses ${[...options.addresses.ipv4, ...options.addresses.ipv6].join(' ') || 'none'}`);
  }

  publish(record: ServiceRecord): void {
    this.run(`"${record.name}" ${record.type} not published`, (now) => this.responder.publish(record, now));
  }

  update(record: ServiceRecord): void {
    this.run(`"${record.name}" ${record.type} not updated`, (now) => this.responder.update(record, now));
  }

  withdraw(record: ServiceRecord): void {
    this.run(`"${record.name}" ${record.type} not withdrawn`, (now) => this.responder.withdraw(record, now));
  }

  /** The host's addresses changed (announced again). */
  setAddresses(addresses: HostAddresses): void {
    this.run('addresses not updated', (now) => this.responder.setAddresses(addresses, now));
  }

  pollTimeout(): number | undefined {
    return this.stopped ? undefined : this.responder.pollTimeout();
  }

  handleTimeout(now: number): void {
    if (this.stopped) return;
    this.responder.handleTimeout(now);
    this.flush();
  }

  /** Goodbye for every service, then the socket closes. Later calls do nothing. */
  stop(): void {
    if (this.stopped) return;
    this.responder.stop(this.options.time.now());
    this.flush();
    this.stopped = true;
    this.options.socket.close();
  }

  private run(failure: string, action: (now: number) => void): void {
    if (this.stopped) {
      this.options.log('warn', `mdns: ${failure}: the advertiser is stopped`);
      return;
    }
    try {
      action(this.options.time.now());
    } catch (error) {
      this.options.log('error', `mdns: ${failure}: ${describeError(error)}`);
    }
    this.flush();
    this.onWake();
  }

  /** Sends what the responder has to send and logs what happened. */
  private flush(): void {
    const { socket, log } = this.options;
    for (let datagram = this.responder.pollTransmit(); datagram; datagram = this.responder.pollTransmit()) {
      try {
        socket.send(datagram.bytes, datagram.address, datagram.port);
      } catch (error) {
        // Like a lost datagram: probes and announcements repeat, queriers ask again.
        log('debug', `mdns: send to ${datagram.address}:${datagram.port} failed: ${describeError(error)}`);
      }
    }
    for (let event = this.responder.pollEvent(); event; event = this.responder.pollEvent()) logEvent(event, log);
  }
}

/** One log line per responder event. */
export function logEvent(event: MdnsEvent, log: Logger): void {
  switch (event.kind) {
    case 'host-claimed':
      return log('info', `mdns: host name ${event.host} claimed`);
    case 'announced':
      return log('info', `mdns: advertising "${event.instance}" ${event.type} port ${event.port} on ${event.host}`);
    case 'reannounced':
      return log('debug', `mdns: "${event.instance}" ${event.type} announced again (TXT or port changed)`);
    case 'renamed':
      return log('warn', `mdns: "${event.from}"${event.type ? ` ${event.type}` : ''} is taken on the network; trying "${event.to}"`);
    case 'gave-up':
      return log('error', `mdns: no free name found for "${event.name}"${event.type ? ` ${event.type}` : ''}; not advertised`);
    case 'withdrawn':
      return log('info', `mdns: withdrew "${event.instance}" ${event.type} (goodbye sent)`);
    case 'malformed':
      return log('debug', `mdns: unreadable datagram from ${event.address}:${event.port}: ${event.reason}`);
    case 'not-sent':
      return log('warn', `mdns: ${event.reason}`);
  }
}
