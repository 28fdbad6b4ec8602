// The package as a user gets it: `npm pack` of this checkout, installed into an empty directory,
// and the installed commands run from there, far from the checkout's sources and dev
// dependencies. This catches what a checkout hides: files missing from the package (the compiled
// dist/, the screen page, the WebAssembly kernels, which dist/ reads by their source paths), a
// run-time import of a dev dependency, a staleness check that wants sources the package lacks.
//
// The default start runs inside a network namespace of the test's own (it advertises by mDNS on
// every interface, as a user's does), with HOME a fresh temporary directory. Dependencies come
// from npm's cache, which `npm ci` filled (--prefer-offline: the registry only for a missing one).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_DIALECT, DIALECTS } from '../../src/dialect';
import { CONTROL_PORT } from '../../src/discovery/services';
import { Child, spawnChild } from './browse';
import { createNetnsPair, netnsUnavailable, type NetnsPair } from './netns';
import { LOG_PREFIX, PROJECT_ROOT } from './receiver-process';
import { MAN_PAGES, NO_ANALYZE, NO_RENDERER, renderWarnings, UNITS, verifyUnit } from '../host/packaging-checks';

const STARTUP_MS = 30_000;
/** npm pack (which runs `prepare`) and npm install from the cache: bounded, generously. */
const NPM_MS = 180_000;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', timeout: NPM_MS, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the packed package, installed into an empty directory', { timeout: 2 * NPM_MS + 60_000 }, () => {
  let work: string | undefined;
  let app = '';
  let bin = '';

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'vendorplay-pack-'));
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], PROJECT_ROOT)) as { filename: string }[];
    const tarball = path.join(work, packed[0].filename);
    app = path.join(work, 'app');
    mkdirSync(app);
    npm(['install', '--prefer-offline', tarball], app);
    bin = path.join(app, 'node_modules', '.bin');
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs without the sources, the dev dependencies or a rebuild', () => {
    const installed = path.join(app, 'node_modules', 'vendorplay-receiver');
    for (const file of ['dist/receiver.cjs', 'dist/send.js', 'LICENSE', 'dist/screen/page.html', 'dist/screen/page.js', 'assemblyscript/build/frame-kernel.wasm', 'assemblyscript/build/nal-kernel.wasm']) {
      assert.ok(existsSync(path.join(installed, file)), `the package has ${file}`);
    }
    for (const absent of ['src', 'test', 'hosts']) assert.ok(!existsSync(path.join(installed, absent)), `the package leaves out ${absent}`);
    // The receiver's code cache is made where it runs (bin/run-with-code-cache.mjs), never shipped.
    assert.deepEqual(readdirSync(path.join(installed, 'dist')).filter((name) => name.endsWith('.v8cache')), []);
    for (const dev of ['esbuild', 'tsx', 'typescript', 'playwright-core']) assert.ok(!existsSync(path.join(app, 'node_modules', dev)), `${dev} (a dev dependency) is not installed`);
  });

  it('vendorplay-receiver --help and vendorplay-send --help answer from the installed package', () => {
    const receiverHelp = execFileSync(path.join(bin, 'vendorplay-receiver'), ['--help'], { cwd: app, encoding: 'utf8', timeout: STARTUP_MS });
    assert.match(receiverHelp, /--name/);
    assert.match(receiverHelp, /--no-mdns/);
    const sendHelp = execFileSync(path.join(bin, 'vendorplay-send'), ['--help'], { cwd: app, encoding: 'utf8', timeout: STARTUP_MS });
    assert.match(sendHelp, /photo/);
  });

  it('--version and -V of both installed commands say the package\'s version', () => {
    const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const command of ['vendorplay-receiver', 'vendorplay-send']) {
      for (const flag of ['--version', '-V']) {
        assert.equal(execFileSync(path.join(bin, command), [flag], { cwd: app, encoding: 'utf8', timeout: STARTUP_MS }), `${command} ${version}\n`);
      }
    }
  });

  it('carries both man pages (named in package.json "man"), rendering without a warning', () => {
    const installed = path.join(app, 'node_modules', 'vendorplay-receiver');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { man?: string[] };
    assert.deepEqual(manifest.man?.map((file) => path.normalize(file)), MAN_PAGES.map((file) => path.normalize(file)));
    for (const page of MAN_PAGES) {
      const text = readFileSync(path.join(installed, page), 'utf8');
      assert.match(text, /^\.SH OPTIONS$/m, page);
      if (!NO_RENDERER) assert.equal(renderWarnings(path.join(installed, page)), '', page);
    }
  });

  it('carries the systemd units, which systemd-analyze verifies with ExecStart at the installed command', { skip: NO_ANALYZE }, () => {
    const installed = path.join(app, 'node_modules', 'vendorplay-receiver');
    assert.ok(existsSync(path.join(installed, 'packaging', 'receiver.conf')), 'the example config file');
    for (const [kind, unit] of Object.entries(UNITS)) {
      assert.deepEqual(verifyUnit(readFileSync(path.join(installed, unit), 'utf8'), path.join(bin, 'vendorplay-receiver'), kind === 'user'), { status: 0, output: '' }, unit);
    }
  });

  it('starts from a config file alone (no options): its port, name, data directory and interface', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'vendorplay-config-'));
    try {
      const file = path.join(config, 'vendorplay', 'receiver.conf');
      mkdirSync(path.dirname(file));
      const dataDir = path.join(config, 'data');
      writeFileSync(file, ['# from the package test', 'name = From the file', 'port = 0', 'no-mdns = true', 'interface = lo', 'no-screen = true', `data-dir = ${dataDir}`, ''].join('\n'));
      const receiver = spawnChild('receiver from a config file', { command: 'env', args: [`XDG_CONFIG_HOME=${config}`, `HOME=${config}`, path.join(bin, 'vendorplay-receiver')] });
      try {
        const port = await receiver.waitFor('the listening line', STARTUP_MS, (lines) => {
          const match = lines.map((line) => /^\S+Z info  listening on 127\.0\.0\.1:(\d+) \(HTTP and RTSP\)$/.exec(line)).find(Boolean);
          return match ? Number(match[1]) : undefined;
        });
        await receiver.waitFor('the services', STARTUP_MS, (lines) => (lines.filter((line) => line.includes('not advertising (--no-mdns) "From the file"')).length === 1 ? true : undefined));
        assert.ok(receiver.stderr.includes(`info  config file ${file}\n`), receiver.report());
        assert.notEqual(port, CONTROL_PORT, 'port = 0: a free one');
        const info = await fetch(`http://127.0.0.1:${port}/server-info`);
        assert.equal(info.status, 200);
        assert.ok(existsSync(dataDir), 'the data directory the file names');
      } finally {
        await receiver.stop('SIGTERM');
      }
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  describe('a default start of the installed command, in a network namespace', { skip: netnsUnavailable() }, () => {
    let pair: NetnsPair | undefined;
    let home: string | undefined;
    let receiver: Child | undefined;

    const emergencyCleanup = (): void => {
      receiver?.process.kill('SIGKILL');
      pair?.destroy();
    };

    before(async () => {
      process.once('exit', emergencyCleanup);
      pair = createNetnsPair('vppack');
      home = mkdtempSync(path.join(tmpdir(), 'vendorplay-home-'));
      receiver = spawnChild('installed receiver', pair.exec(pair.receiver, 'env', [`HOME=${home}`, path.join(bin, 'vendorplay-receiver')]));
      await receiver.waitFor('advertisement of both services', STARTUP_MS, (lines) =>
        lines.filter((line) => line.replace(LOG_PREFIX, '').startsWith('advertising ')).length >= 2 ? true : undefined,
      );
    });

    after(async () => {
      await receiver?.stop('SIGTERM');
      pair?.destroy();
      process.removeListener('exit', emergencyCleanup);
      if (home) rmSync(home, { recursive: true, force: true });
    });

    /** curl run inside `namespace`: the body, or throws with curl's reason. */
    function curl(namespace: string, url: string): string {
      return execFileSync('ip', ['netns', 'exec', namespace, 'curl', '-sS', '--fail', '--max-time', '10', url], { encoding: 'utf8', timeout: 15_000 });
    }

    it('advertises the media service and answers GET /server-info from the other namespace', () => {
      assert.ok(receiver!.lines.some((line) => line.replace(LOG_PREFIX, '').startsWith(`advertising "Receiver" ${DIALECTS[DEFAULT_DIALECT].serviceType} port ${CONTROL_PORT}:`)), receiver!.report());
      const info = curl(pair!.sender.namespace, `http://${pair!.receiver.address}:${CONTROL_PORT}/server-info`);
      assert.match(info, /<key>deviceid<\/key>/);
    });

    it('serves the screen page and the files it names, and loads the WebAssembly frame kernel at the first encrypted request', async () => {
      const screenUrl = /^\S+Z info  screen on (http:\/\/127\.0\.0\.1:\d+\/)/m.exec(receiver!.lines.join('\n'))?.[1];
      assert.ok(screenUrl, receiver!.report());
      assert.match(curl(pair!.receiver.namespace, screenUrl), /<html/i);
      for (const file of ['page.js', 'screen.css']) assert.ok(curl(pair!.receiver.namespace, `${screenUrl}${file}`).length > 0, file);
      // The receiver chooses its frame kernel when the first encrypted frame needs it: the
      // installed sender pairs (the public PIN) and sends POST /stop over a verified connection.
      const target = `${pair!.receiver.address}:${CONTROL_PORT}`;
      for (const args of [['pair', target, '--pin', '3939'], ['stop', target]]) {
        const { command, args: argv } = pair!.exec(pair!.sender, 'env', [`HOME=${home}`, path.join(bin, 'vendorplay-send'), ...args]);
        execFileSync(command, argv, { encoding: 'utf8', timeout: STARTUP_MS });
      }
      // The child's stderr reaches this process through a pipe: read until the line is there.
      for (const deadline = Date.now() + STARTUP_MS; !/frame kernel: /.test(receiver!.stderr) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.match(receiver!.stderr, /frame kernel: ours-wasm/, receiver!.report());
    });
  });
});
