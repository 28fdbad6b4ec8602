// Every fuzz campaign, in one list: the runner (run.ts), the npm test file (fuzz.test.ts) and
// the portable smoke in test/unit all take them from here. Portable: ECMAScript only.

import { channelOpen, jpeg, mdnsUnicast, plistBinary, plistParameters, plistXml, slideshowAssetReply, tlv8 } from './codecs';
import { admission } from './admission';
import { AUDIO_CAMPAIGNS } from './audio';
import type { Campaign } from './engine';
import { httpAssembler, httpRequestParser, httpResponseParser } from './http';
import { mirrorAvcC, mirrorPacketReader, mirrorSession, mirrorStreamRequest } from './mirror';
import { mdnsResponder } from './mdns';
import { pairingCrowd } from './pairing-crowd';
import { pairingLock } from './pairing-lock';
import { receiverConnection } from './receiver';
import { sessionSetup } from './session';

export const CAMPAIGNS: readonly Campaign<never>[] = [
  httpRequestParser,
  httpResponseParser,
  httpAssembler,
  plistXml,
  plistBinary,
  plistParameters,
  tlv8,
  channelOpen,
  jpeg,
  slideshowAssetReply,
  mdnsUnicast,
  mdnsResponder,
  receiverConnection,
  admission,
  mirrorAvcC,
  mirrorStreamRequest,
  mirrorPacketReader,
  mirrorSession,
  sessionSetup,
  pairingLock,
  pairingCrowd,
  ...AUDIO_CAMPAIGNS,
] as unknown as Campaign<never>[];

/** The seed every campaign uses unless told another (so runs are comparable). */
export const DEFAULT_SEED = 0x5eed;
