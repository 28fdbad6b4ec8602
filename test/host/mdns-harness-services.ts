// The services test/host/mdns-harness.ts publishes, shared with the test that checks what browsers
// resolve: two services on one host, TXT records as long as the desktop receiver's.

import type { ServiceRecord } from '../../src/platform';

export const MDNS_HARNESS_NAME = 'Harness Frame';

const MEDIA_TXT: [string, string][] = [
  ['acl', '0'],
  ['deviceid', '02:56:50:0E:2E:01'],
  ['features', '0x5A7FFFF7,0x1E'],
  ['flags', '0x4'],
  ['gid', '5C2E4B1A-7C48-4E0C-9A51-0D3B9E6F2A10'],
  ['igl', '1'],
  ['gcgl', '0'],
  ['model', 'VendorDesktop1,1'],
  ['protovers', '1.1'],
  ['pi', '2E388006-13BA-4041-9A67-25DD4A43D536'],
  ['psi', '2E388006-13BA-4041-9A67-25DD4A43D536'],
  ['pk', 'b07727d6f6cd6e08b58ede525ec3cdeaa252ad9f683feb212ef8a205246554e7'],
  ['srcvers', '366.0'],
  ['osvers', '14.5'],
  ['vv', '2'],
];

export const MDNS_HARNESS_SERVICES: readonly ServiceRecord[] = [
  { name: MDNS_HARNESS_NAME, type: '_vendorplay._tcp', port: 7000, txt: MEDIA_TXT },
  {
    name: `0256500E2E01@${MDNS_HARNESS_NAME}`,
    type: '_raop._tcp',
    port: 7000,
    txt: [
      ['cn', '0,1,2,3'],
      ['da', 'true'],
      ['et', '0,3,5'],
      ['ft', '0x5A7FFFF7,0x1E'],
      ['md', '0,1,2'],
      ['am', 'VendorDesktop1,1'],
      ['pk', 'b07727d6f6cd6e08b58ede525ec3cdeaa252ad9f683feb212ef8a205246554e7'],
      ['sf', '0x4'],
      ['tp', 'UDP'],
      ['vn', '65537'],
      ['vs', '366.0'],
      ['ov', '14.5'],
    ],
  },
];

/** The media service's TXT after `update`: flags as when a photo shows. */
export const MDNS_HARNESS_UPDATE: [string, string][] = MEDIA_TXT.map(([key, value]) => [key, key === 'flags' ? '0x204' : value]);
