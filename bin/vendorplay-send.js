#!/usr/bin/env node
// The `vendorplay-send` command: a sender (photo, slideshow, stop), run from its TypeScript
// source through tsx like `vendorplay-receiver`.
import { register } from 'tsx/esm/api';

register();
await import('../hosts/node/send/main.ts');
