#!/usr/bin/env node
// The `vendorplay-receiver` command: runs the TypeScript desktop host through tsx, so no build
// step stands between a clone and a running receiver.
import { register } from 'tsx/esm/api';

register();
await import('../hosts/node/main.ts');
