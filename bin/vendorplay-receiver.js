#!/usr/bin/env node
// The `vendorplay-receiver` command: runs the desktop host compiled into dist/ (scripts/build.mjs;
// `npm install` builds it), rebuilding it first when a source is newer. `npm start` execs this
// file directly, so Ctrl-C and SIGTERM reach the receiver with no shell in between.
import { ensureBuild } from '../scripts/build.mjs';

await import(await ensureBuild('receiver', 'vendorplay-receiver'));
