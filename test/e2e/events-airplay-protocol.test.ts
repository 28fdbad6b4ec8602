// Events (spec 6) received by a client nobody here wrote: npm `airplay-protocol`, a sender
// library for the real-world dialect. It opens one reverse connection (POST /reverse, Upgrade
// PTTH/1.0, with no purpose and no session id: it sends X-Apple-Session-ID on no request) and
// emits each POST /event it receives, parsing the plist when the Content-Type is the real-world
// dialect's. So the receiver runs with --dialect apple, and every request of the test is made
// without a session id, as that client makes them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AirPlay from 'airplay-protocol';
import { PROMPT_MS, ReceiverProcess, until, within } from './receiver-process';

/** A last bound on the suite (a second or two on a quiet machine), beyond the bound on every wait inside it. */
const BOUND = { timeout: 120_000 };

/** A small baseline JPEG (SOI, SOF0, SOS, scan data, EOI): a picture the receiver accepts. */
const JPEG = new Uint8Array([
  0xff, 0xd8, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00,
  0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x2a, 0xff, 0xd9,
]);

type Event = Record<string, unknown>;

/** A client with its reverse connection open; resolves once the receiver has turned it around. */
async function connectedClient(receiver: ReceiverProcess): Promise<{ client: AirPlay; events: Event[]; errors: Error[]; next: (count: number) => Promise<Event[]> }> {
  const turned = () => receiver.stderr.split('\n').filter((line) => line.includes('turned into a reverse connection (purpose none)')).length;
  const before = turned();
  const client = new AirPlay('127.0.0.1', receiver.port);
  const events: Event[] = [];
  let wake: () => void = () => {};
  client.on('event', (event: Event) => {
    events.push(event);
    wake();
  });
  // Its reverse connection reconnects whenever it closes, until destroyed: errors are kept for
  // the test to look at, never thrown from a socket callback.
  const errors: Error[] = [];
  client.on('error', (error: Error) => errors.push(error));
  // What play() does first; called alone, so no video is asked for.
  client._startReverse();
  await until(() => 'the reverse connection not turned around', () => turned() > before, PROMPT_MS);
  const next = (count: number) =>
    within(PROMPT_MS, `${count} events (have ${JSON.stringify(events)})`, (async () => {
      while (events.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return events.slice(0, count);
    })());
  return { client, events, errors, next };
}

/** A request as that client's users send one alongside it: no session id. */
async function put(port: number, path: string, body: Uint8Array | string, contentType: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'PUT', body, headers: { 'Content-Type': contentType, 'User-Agent': 'iTunes/11.0.2' } });
  await response.arrayBuffer();
  return response.status;
}

describe('airplay-protocol receives our events', BOUND, () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple', '--screen-port', '0'] });
  });

  after(async () => {
    await receiver?.stop();
  });

  test('PUT /photo then the client\'s stop(): it receives the photo event, state stopped, and ends its session', async () => {
    const { client, next, errors } = await connectedClient(receiver);
    try {
      assert.equal(await put(receiver.port, '/photo', JPEG, 'image/jpeg'), 200);
      const stopStatus = await within(PROMPT_MS, 'POST /stop', new Promise<number>((resolve, reject) => client.stop((error, response) => (response ? resolve(response.statusCode ?? 0) : reject(error)))));
      assert.equal(stopStatus, 200);
      const [event] = await next(1);
      assert.equal(event.category, 'photo');
      assert.equal(event.state, 'stopped');
      assert.equal(typeof event.sessionID, 'number');
      // The library ends its session on stopped (destroys the reverse connection).
      assert.equal(client.state, 'stopped');
      assert.deepEqual(errors, []);
    } finally {
      client.destroy();
    }
  });

  test('a slideshow: the client receives loading, then stopped with lastAssetID', async () => {
    const { client, next, errors } = await connectedClient(receiver);
    try {
      const playing = '<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>settings</key><dict><key>slideDuration</key><integer>3</integer><key>theme</key><string>Dissolve</string></dict><key>state</key><string>playing</string></dict></plist>';
      assert.equal(await put(receiver.port, '/slideshows/1', playing, 'text/x-apple-plist+xml'), 200);
      const [loading] = await next(1);
      // The library opens no slideshow connections, so no picture comes: the show stays loading.
      assert.deepEqual({ category: loading.category, state: loading.state, lastAssetID: loading.lastAssetID }, { category: 'slideshow', state: 'loading', lastAssetID: 0 });
      const stopped = playing.replace('<string>playing</string>', '<string>stopped</string>');
      assert.equal(await put(receiver.port, '/slideshows/1', stopped, 'text/x-apple-plist+xml'), 200);
      const [, end] = await next(2);
      assert.deepEqual({ category: end.category, state: end.state, lastAssetID: end.lastAssetID, sessionID: end.sessionID }, { category: 'slideshow', state: 'stopped', lastAssetID: 0, sessionID: loading.sessionID });
      assert.equal(client.state, 'stopped');
      assert.deepEqual(errors, []);
    } finally {
      client.destroy();
    }
  });
});
