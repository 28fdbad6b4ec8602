// The built-in check of the UdpBinder without a mirroring sender (manifest config `udpEchoTest`:
// true; hosts/moddable/mirror-test/manifest.json sets it): binds port 0 (the binder picks a free
// port of the dynamic range), logs the port, and sends every datagram back where it came from,
// so a client on loopback sees the socket receive, report the sender's address, and send.

import type { Logger, UdpBinder, UdpSocket } from '../../src/platform';

export function startUdpEchoTest(bind: UdpBinder, log: Logger): void {
  let echo: UdpSocket;
  try {
    echo = bind(0);
  } catch (error) {
    log('warn', `udpEchoTest: ${error instanceof Error ? error.message : String(error)}`);
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
