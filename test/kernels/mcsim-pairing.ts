// By hand, against a running receiver (the Moddable simulator; hosts/moddable/README.md
// says how to start it): pairs, verifies and talks encrypted, printing one line per step.
//   1. hap-controller (npm): pair-setup M1-M6 (Method 0) with the PIN, then pair-verify and an
//      encrypted GET /server-info on its own verified connection.
//   2. Our client: pair-verify with the identities hap-controller stored, on RTSP; encrypted RTSP
//      GET /info, then PUT /photo of a JPEG (1 MB by default) through the same channel.
//   3. hap-controller: transient pair-setup M1-M4; then ours, transient, and encrypted GET
//      /server-info and RTSP GET /info on that connection.
// Usage (inside the receiver's network namespace):
//   node --import tsx test/kernels/mcsim-pairing.ts [port=7001] [photoBytes=1048576] [pin=3939]

import { randomBytes } from 'node:crypto';
import { PairMethods, PairingTypeFlags, type PairingData } from 'hap-controller';
import { utf8Decode } from '../../src/bytes';
import { createSenderChannel } from '../../src/pairing/channel';
import { TLV } from '../../src/pairing/tlv-types';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { decodeXmlPlist } from '../../src/plist/xml';
import { PairVerifyClient, pairSetupM1, replyItems, srpClientStep } from '../support/pairing-client';
import { HOST, PinClient, Sender, photo } from './mcsim-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const [port = 7001, photoBytes = 1 << 20] = process.argv.slice(2, 4).map(Number);
const PIN = process.argv[4] ?? '3939';
const random = (n: number) => new Uint8Array(randomBytes(n));

function step(what: string, started: number): void {
  console.log(`${what} (${Date.now() - started} ms)`);
}

async function main(): Promise<void> {
  let started = Date.now();
  const hap = new PinClient('vendorplay-mcsim', HOST, port);
  await hap.pairSetup(PIN, PairMethods.PairSetup);
  const paired: PairingData = hap.getLongTermData()!;
  step(`hap-controller pair-setup M1-M6: paired, receiver ${utf8Decode(new Uint8Array(Buffer.from(paired.AccessoryPairingID, 'hex')))}`, started);

  started = Date.now();
  const verified = new PinClient('vendorplay-mcsim', HOST, port, paired);
  const connection = await (verified as unknown as { getDefaultVerifiedConnection(): Promise<{ get(path: string): Promise<{ statusCode: number; body: Buffer }>; close(): void }> }).getDefaultVerifiedConnection();
  const info = await connection.get('/server-info');
  const record = decodeXmlPlist(info.body.toString('utf8')) as Record<string, unknown>;
  step(`hap-controller pair-verify + encrypted GET /server-info: ${info.statusCode}, deviceid ${String(record.deviceid)}`, started);
  connection.close();

  started = Date.now();
  const hex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'));
  const ltsk = hex(paired.iOSDeviceLTSK);
  const client = new PairVerifyClient(
    { id: utf8Decode(hex(paired.iOSDevicePairingID)), keys: { secretKey: ltsk.slice(0, 32), publicKey: hex(paired.iOSDeviceLTPK) } },
    { id: utf8Decode(hex(paired.AccessoryPairingID)), publicKey: hex(paired.AccessoryLTPK) },
    random,
  );
  const sender = await Sender.connect(port);
  const m2 = await sender.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m1() });
  if (m2.head.status !== 200 || replyItems(m2.body).get(TLV.Error)) throw new Error(`our pair-verify M2: ${m2.head.status}, TLV ${Buffer.from(m2.body).toString('hex')}`);
  const m4 = await sender.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m3(m2.body) });
  if (replyItems(m4.body).get(TLV.Error)) throw new Error('our pair-verify: M4 carries an error');
  sender.encrypt(client.channel());
  const rtsp = await sender.request('GET', '/info', { protocol: 'RTSP' });
  step(`our pair-verify on RTSP + encrypted RTSP GET /info: ${rtsp.head.status}, deviceID ${String((decodeBinaryPlist(rtsp.body) as Record<string, unknown>).deviceID)}`, started);
  const picture = photo(photoBytes);
  started = Date.now();
  const put = await sender.request('PUT', '/photo', { body: picture, contentType: 'image/jpeg' });
  step(`PUT /photo of ${picture.length} bytes over the paired channel: ${put.head.status}`, started);
  sender.close();

  started = Date.now();
  await new PinClient('vendorplay-mcsim', HOST, port).pairSetup(PIN, PairMethods.PairSetup, PairingTypeFlags.kPairingFlag_Transient);
  step('hap-controller transient pair-setup M1-M4: done', started);

  started = Date.now();
  const transient = await Sender.connect(port);
  const t2 = await transient.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }), contentType: 'application/pairing+tlv8' });
  const srp = srpClientStep(t2.body, PIN, random);
  const t4 = await transient.request('POST', '/pair-setup', { body: srp.m3, contentType: 'application/pairing+tlv8' });
  if (replyItems(t4.body).get(TLV.Error)) throw new Error('our transient pair-setup: M4 carries an error');
  transient.encrypt(createSenderChannel(srp.sessionKey, portableCryptoKernels));
  const serverInfo = await transient.request('GET', '/server-info');
  const rtspInfo = await transient.request('GET', '/info', { protocol: 'RTSP' });
  step(`our transient pair-setup + encrypted GET /server-info ${serverInfo.head.status}, RTSP GET /info ${rtspInfo.head.status}`, started);
  transient.close();
}

main().catch((error: unknown) => {
  console.error(`failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
