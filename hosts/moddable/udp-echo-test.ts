// The built-in check of the UdpBinder without a mirroring sender (manifest config `udpEchoTest`:
// true; hosts/moddable/mirror-test/manifest.json sets it): binds UDP_ECHO_PORT, and sends every
// datagram back where it came from, so a client on loopback sees the socket receive, report the
// sender's address, and send. (A fixed port: the SDK's socket cannot tell which one port 0 got.)

import type { Logger, UdpBinder, UdpSocket } from '../../src/platform';
import { describeError } from '../../src/errors';

/** Next to the core's NTP port (7011), not on it: a mirroring session may bind that meanwhile. */
export const UDP_ECHO_PORT = 7019;

export function startUdpEchoTest(bind: UdpBinder, log: Logger): void {
  let echo: UdpSocket;
  try {
    echo = bind(UDP_ECHO_PORT);
  } catch (error) {
    log('warn', `udpEchoTest: ${describeError(error)}`);
    return;
  }
  let count = 0;
  echo.onPacket = (bytes, address, port) => {
    count++;
    log('info', `udpEchoTest: datagram ${count} of ${bytes.length} bytes from ${address}:${port}, sent back`);
    echo.send(bytes, address, port);
  };
  log('info', `udpEchoTest: echoing on UDP port ${echo.localPort}`);
}
