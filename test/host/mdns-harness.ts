// A small Node host for our own mDNS responder, for test/host/mdns-responder.test.ts: a real dgram
// socket on 0.0.0.0:5353, joined to 224.0.0.251 on ADDRESS with multicast loopback on, as the
// UdpSocket; the portable MdnsAdvertiser on it, driven by the receiver's TimerDriver. Run only
// inside the test's own network namespace:
//
//   ip netns exec NS node --import tsx test/host/mdns-harness.ts ADDRESS
//
// Publishes the two services of MDNS_HARNESS_SERVICES, logs each line on stdout, and reads
// commands on stdin: `update` (the media service's TXT gets flags=0x204, as when a photo shows),
// `stop` (goodbye, then exit once it is sent).

import dgram from 'node:dgram';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { MdnsAdvertiser } from '../../src/discovery/mdns/mdns-advertiser';
import { MDNS_GROUP } from '../../src/discovery/mdns/mdns-limits';
import type { Clock, ServiceRecord, UdpSocket } from '../../src/platform';
import { TimerDriver } from '../../src/receiver/timers';
import { MDNS_HARNESS_NAME, MDNS_HARNESS_SERVICES, MDNS_HARNESS_UPDATE } from './mdns-harness-services';

const address = process.argv[2] ?? '127.0.0.1';
const start = performance.now();
const clock: Clock = {
  now: () => performance.now() - start,
  wallTime: () => Date.now(),
  setTimer: (ms, callback) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
socket.on('error', (error) => {
  console.log(`socket error: ${error.message}`);
  process.exit(1);
});
socket.bind(MDNS_GROUP.port, () => {
  socket.addMembership(MDNS_GROUP.ipv4, address);
  socket.setMulticastInterface(address);
  socket.setMulticastLoopback(true);
  // RFC 6762 11: multicast DNS goes with IP TTL 255 (receivers may check it).
  socket.setMulticastTTL(255);
  // dgram sends complete later: the goodbye sent just before close() must go out first.
  let sending = 0;
  let closing = false;
  const closeWhenSent = (): void => {
    if (closing && sending === 0) socket.close(() => process.exit(0));
  };
  const port: UdpSocket = {
    localPort: socket.address().port,
    send: (bytes, to, toPort) => {
      sending++;
      socket.send(bytes, toPort, to, () => {
        sending--;
        closeWhenSent();
      });
    },
    close: () => {
      closing = true;
      closeWhenSent();
    },
    onPacket: () => {},
  };
  socket.on('message', (bytes, from) => port.onPacket(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), from.address, from.port));
  const advertiser = new MdnsAdvertiser({
    socket: port,
    time: clock,
    random: (n) => new Uint8Array(randomBytes(n)),
    name: MDNS_HARNESS_NAME,
    addresses: { ipv4: [address], ipv6: [] },
    log: (level, message) => console.log(`${level} ${message}`),
  });
  const driver = new TimerDriver(advertiser, clock);
  const services: ServiceRecord[] = MDNS_HARNESS_SERVICES.map((service) => ({ ...service, txt: [...service.txt] }));
  for (const service of services) advertiser.publish(service);
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'update') {
      advertiser.update({ ...services[0], txt: MDNS_HARNESS_UPDATE });
      console.log('updated');
    } else if (line === 'stop') {
      advertiser.stop();
      driver.stop();
      console.log('stopped');
    }
  });
});
