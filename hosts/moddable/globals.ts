// Web globals a library reads while its module loads, installed from the SDK's modules before
// those libraries load: main.ts imports this file first. @noble/curves/ed25519 builds its FROST
// and hash-to-curve parameters at load with `new TextEncoder()` (utf8ToBytes); XS on Moddable has
// TextEncoder and TextDecoder only as the modules `text/encoder` and `text/decoder`. The core
// itself uses neither (src/bytes.ts has its own UTF-8).

import TextDecoder from 'text/decoder';
import TextEncoder from 'text/encoder';

const global = globalThis as { TextEncoder?: unknown; TextDecoder?: unknown };
global.TextEncoder ??= TextEncoder;
global.TextDecoder ??= TextDecoder;
