// The Transport header of a classic SETUP (pyatv's exact one), the answer's, and what is refused
// (TCP interleaved, multicast, a mode other than record, bad ports) with 461.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TransportHeaderError, readReceiverTransport, readSenderTransport, writeReceiverTransport, writeSenderTransport } from '../../src/audio/transport-header';

const PYATV_TRANSPORT = 'RTP/AVP/UDP;unicast;interleaved=0-1;mode=record;control_port=50123;timing_port=50124';

test('pyatv\'s Transport gives its control and timing ports; the sender tool writes the same header', () => {
  assert.deepEqual(readSenderTransport(PYATV_TRANSPORT), { controlPort: 50123, timingPort: 50124 });
  assert.equal(writeSenderTransport({ controlPort: 50123, timingPort: 50124 }), PYATV_TRANSPORT);
  assert.deepEqual(readSenderTransport('RTP/AVP;unicast;mode="record"'), {}, 'RTP/AVP is UDP; no ports: none asked');
});

test('the answer names server, control and timing ports as pyatv reads them', () => {
  const answer = writeReceiverTransport({ serverPort: 6000, controlPort: 6001, timingPort: 6002 });
  assert.equal(answer, 'RTP/AVP/UDP;unicast;mode=record;server_port=6000;control_port=6001;timing_port=6002');
  assert.deepEqual(readReceiverTransport(answer), { serverPort: 6000, controlPort: 6001, timingPort: 6002 });
  assert.throws(() => readReceiverTransport('RTP/AVP/UDP;unicast;server_port=6000'), /without control_port/);
});

test('TCP interleaved, multicast, another mode and bad ports are refused with 461', () => {
  const cases: [string, RegExp][] = [
    ['RTP/AVP/TCP;unicast;interleaved=0-1;mode=record', /RTP\/AVP\/TCP .*takes audio over UDP/],
    ['RTP/AVP/UDP;multicast;mode=record', /multicast/],
    ['RTP/AVP/UDP;unicast;mode=play', /mode=play/],
    ['RTP/AVP/UDP;unicast;mode=record;control_port=0', /control_port=0 is not a port/],
    ['RTP/AVP/UDP;unicast;mode=record;timing_port=70000', /timing_port=70000/],
    ['RTP/SAVP;unicast', /names no RTP\/AVP\/UDP transport/],
  ];
  for (const [header, reason] of cases) {
    assert.throws(() => readSenderTransport(header), (error) => error instanceof TransportHeaderError && error.status === 461 && reason.test(error.message), header);
  }
  assert.deepEqual(readSenderTransport('RTP/AVP/TCP;interleaved=0-1, ' + PYATV_TRANSPORT), { controlPort: 50123, timingPort: 50124 }, 'the UDP alternative is taken');
});
