// A receiver on in-memory ports (manual clock, seeded random, map store, recording log), as the
// connection suites drive it. Portable (runs in the XS suite too).

import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from './memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

export function testReceiver(limits: Partial<ReceiverLimits> = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Test Frame', deviceId: '58:55:CA:1A:E2:88', limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(3),
    store: new MemoryStore(),
    log,
  });
  // The features' deadlines on the manual clock, as a host drives them on its own.
  new TimerDriver(receiver, clock);
  return { clock, log, receiver };
}
