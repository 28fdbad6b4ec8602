// Runs the C natives inside XS: builds the XS test host (modules/native/xs-host: the
// XS sources @agoric/xsnap brings, our natives, Debian's libsodium and mbedTLS; cached in
// modules/native/build), then runs in it the shared vectors and pairing flows for the portable
// build and the natives (xs-host-suite.ts) and every pairing suite of test/unit. The host's XS,
// like an app the Moddable SDK links, gives functions no `length`.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildXsHost } from '../../modules/native/xs-host/build.mjs';
import { bundlePortableSuites, portableSuites } from '../xs/bundle';
import { runInXs, suiteResult } from '../xs/xsnap';

const HERE = path.dirname(fileURLToPath(import.meta.url));

test('the shared vectors and the pairing suites pass inside the XS test host, on the C natives and on @noble (and the NAL and ALAC vectors on the C and portable kernels)', async () => {
  const worker = await buildXsHost({ quiet: true });
  const pairingSuites = portableSuites().filter((file) => path.basename(file).startsWith('pairing-'));
  const files = [path.join(HERE, 'xs-host-suite.ts'), ...pairingSuites];
  const run = await runInXs(await bundlePortableSuites(files), 300_000, worker);
  const { summary, failures, lines } = suiteResult(run);
  console.log(`XS test host: ${summary.passed} passed, ${summary.failed} failed (${files.length} files); compute ${run.meter.compute} steps`);
  assert.deepEqual(failures, [], `failures inside the XS test host:\n${failures.join('\n')}`);
  assert.ok(lines.some((line) => line.startsWith('ok') && line.includes('native: frame kernel')), 'the native vectors did not run');
  assert.ok(lines.some((line) => line.startsWith('ok') && line.includes('native receiver: normal pair-setup')), 'the native pairing flows did not run');
  assert.ok(lines.some((line) => line.startsWith('ok') && line.includes('native: every NAL vector converts')), 'the native NAL vectors did not run');
  assert.ok(lines.some((line) => line.startsWith('ok') && line.includes('native: every ALAC vector decodes')), 'the native ALAC vectors did not run');
});
