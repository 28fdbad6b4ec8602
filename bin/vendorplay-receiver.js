#!/usr/bin/env node
// The `vendorplay-receiver` command: runs the desktop host compiled into dist/ (scripts/build.mjs;
// `npm install` builds it), rebuilding it first when a source is newer, through V8's code cache
// (run-with-code-cache.mjs). `npm start` execs this file directly, so Ctrl-C and SIGTERM reach the
// receiver with no shell in between.
import { ensureBuild } from '../scripts/build.mjs';
import { runWithCodeCache } from './run-with-code-cache.mjs';

runWithCodeCache(await ensureBuild('receiver', 'vendorplay-receiver'));
