// Debian's Chromium for the browser tests and benches (driven by playwright-core): where it is and
// how it runs: headless, and with the browser's own network services off (loopback only).

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
