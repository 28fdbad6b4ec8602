// The spec's sample shapes (sections 2.5, 2.7, 2.8, 2.9, 2.10, 2.11, 2.13) as property-list values.
// Dotted keys in the spec tables are nested dictionaries on the wire. Shared by the oracle tests
// and the benchmarks.

import { PlistReal, type PlistValue } from '../../src/plist/value';

const r = (value: number) => new PlistReal(value);

export const PLIST_SAMPLES: Record<string, PlistValue> = {
  // spec 2.5: GET /server-info
  '2.5 server information record': {
    deviceid: '58:55:CA:1A:E2:88',
    features: 0x5a7ffff7 + 0x1e * 2 ** 32,
    model: 'VendorFrame1,1',
    protovers: '1.0',
    srcvers: '220.68',
  },
  // spec 2.7: PUT /slideshows/1
  '2.7 slideshow settings': {
    settings: { slideDuration: 5, theme: 'Dissolve' },
    state: 'playing',
  },
  // spec 2.8: the sender's reply to GET /slideshows/1/assets/1 (info.key shown as a string)
  '2.8 slideshow asset reply': {
    data: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]),
    info: { id: 3, key: '1' },
  },
  // spec 2.9: GET /playback-info
  '2.9 playback information': {
    duration: r(1801.0),
    position: r(43.25),
    rate: r(1),
    readyToPlay: true,
    playbackBufferEmpty: false,
    playbackBufferFull: false,
    playbackLikelyToKeepUp: true,
    loadedTimeRanges: [{ start: r(0), duration: r(120.5) }],
    seekableTimeRanges: [{ start: r(0), duration: r(1801.0) }],
  },
  // spec 2.10: one entry of the /getProperty playbackAccessLog value array
  '2.10 playback access log entry': {
    bytes: 1818336,
    'c-duration-downloaded': r(70),
    'c-duration-watched': r(18.154),
    'c-frames-dropped': 0,
    'c-observed-bitrate': r(14598047.302367469),
    'c-overdue': 0,
    'c-stalls': 0,
    'c-start-time': r(0),
    'c-startup-time': r(0.27732),
    'cs-guid': 'B475F105-78FD-4200-96BC-148BAB6DAC11',
    date: new Date(Date.UTC(2012, 8, 15, 17, 28, 8)),
    's-ip': '213.152.6.89',
    's-ip-changes': 0,
    'sc-count': 7,
    uri: 'http://192.0.2.10/content/sample-video.mp4',
  },
  // spec 2.11: RTSP GET /info
  '2.11 audio-service information record': {
    PTPInfo: 'OpenAVNU ArtAndLogic-aPTP-changes a5d7f94-0.0.1',
    build: '16.0',
    deviceID: '58:55:CA:1A:E2:88',
    features: 0x5a7ffff7 + 0x1e * 2 ** 32,
    initialVolume: r(-20),
    macAddress: '58:55:CA:1A:E2:88',
    firmwareBuildDate: 'Nov 21 2026',
    firmwareRevision: '1.0.0',
    keepAliveLowPower: true,
    keepAliveSendStatsAsBody: true,
    manufacturer: 'Vendor',
    model: 'VendorFrame1,1',
    name: 'Living Room',
    nameIsFactoryDefault: false,
    pi: 'b08f5a79-db29-4384-b456-a4784d9e6055',
    pk: new Uint8Array(32).fill(0x5a),
    playbackCapabilities: { supportsFPSSecureStop: false, supportsUIForAudioOnlyContent: true },
    protocolVersion: '1.1',
    psi: '00000000-0000-0000-0000-5855ca1ae288',
    senderAddress: '192.0.2.20:49152',
    sdk: 'VendorPlay;2.0.2',
    sourceVersion: '220.68',
    statusFlags: 4,
    txtAirPlay: new Uint8Array([5, 0x61, 0x63, 0x6c, 0x3d, 0x30]),
    txtRAOP: new Uint8Array([9, 0x74, 0x78, 0x74, 0x76, 0x65, 0x72, 0x73, 0x3d, 0x31]),
    volumeControlType: 4,
    vv: 2,
  },
  // spec 2.13: the body of POST /stream on the mirroring port
  '2.13 mirroring stream request': {
    deviceID: 0x5855ca1ae288,
    sessionID: -808788724,
    version: '130.14',
    param1: new Uint8Array(72).fill(7),
    param2: new Uint8Array(16).fill(9),
    latencyMs: 90,
    fpsInfo: [{ name: 'SubS' }, { name: 'B4En' }, { name: 'EnDp' }],
    timestampInfo: [{ name: 'SubSu' }, { name: 'BePxT' }, { name: 'AfPxT' }],
  },
};
