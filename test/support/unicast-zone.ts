// The zone a desktop receiver answers unicast DNS queries from (src/discovery/mdns-unicast.ts),
// with the TXT records the receiver itself builds: the desktop profile with the Node host's ports
// (a screen, a player, a decoder and UDP, so every feature bit the host advertises), seeded so
// the bytes are the same on every run. Portable (runs in the XS suite too).

import { hostLabel } from '../../src/discovery/dnssd-names';
import type { Zone } from '../../src/discovery/mdns-unicast';
import { txtBytes } from '../../src/discovery/txt-bytes';
import type { DialectName } from '../../src/dialect';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { MemoryPlayer } from './memory-player';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from './memory-ports';
import { memoryUdp, RecordingDecoder } from './mirror-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

/** The interface address the answers carry (A record). */
export const ZONE_IPV4 = Uint8Array.of(192, 168, 1, 20);

/** The desktop receiver called `name`, in `dialect`, as its unicast responder sees it. */
export function desktopZone(dialect: DialectName, name = 'Receiver'): Zone {
  const receiver = new Receiver(makeConfig({ name, dialect, profile: 'desktop', deviceId: '58:55:CA:1A:E2:88' }), {
    crypto: portableCryptoKernels,
    clock: new ManualClock(),
    random: seededRandom(21),
    store: new MemoryStore(),
    log: recordingLogger(),
    display: new RecordingDisplay(),
    player: new MemoryPlayer(),
    videoDecoder: new RecordingDecoder(),
    udp: memoryUdp().binder,
  });
  return {
    ipv4: ZONE_IPV4,
    services: receiver.services().map((service) => ({
      instance: service.name,
      type: service.type,
      port: service.port,
      txt: txtBytes(service.txt),
      host: hostLabel(name),
    })),
  };
}
