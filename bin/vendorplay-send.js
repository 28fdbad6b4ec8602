#!/usr/bin/env node
// The `vendorplay-send` command: a sender (photo, slideshow, stop), compiled into dist/ like
// `vendorplay-receiver` and rebuilt first when a source is newer.
import { ensureBuild } from '../scripts/build.mjs';

await import(await ensureBuild('send', 'vendorplay-send'));
