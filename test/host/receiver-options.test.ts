// The receiver's options table and what is made from it: the parser's ports (--port as the base of
// every listener), the config file (found, read, checked, the command line winning) and the
// package's version. parseCommandLine runs in-process here; test/e2e/command-line.test.ts runs
// the built command.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseCommandLine, receiverHelp, type CommandLine } from '../../hosts/node/command-line';
import { configEntries, configFileCandidates, configValues, findConfigFile } from '../../hosts/node/config-file';
import { optionsHelp, wrap } from '../../hosts/node/option-table';
import { HOOK_TIMEOUT_MS, MAX_RUNNING_HOOKS } from '../../hosts/node/event-hooks';
import { packageVersion } from '../../hosts/node/package-version';
import { PORT_OFFSETS, RECEIVER_OPTIONS } from '../../hosts/node/receiver-options';
import { SENDER_OPTIONS } from '../../sender/options';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-options-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The command line read with no config file in reach (XDG_CONFIG_HOME an empty folder, /etc aside). */
function parse(args: string[], env: NodeJS.ProcessEnv = { XDG_CONFIG_HOME: path.join(dir, 'no-config') }): CommandLine {
  const parsed = parseCommandLine(['--data-dir', path.join(dir, 'data'), ...args], env);
  assert.ok(parsed);
  return parsed;
}

/** Every port of a parsed command line, by option. */
function ports(commandLine: CommandLine): Record<string, number> {
  const { config } = commandLine;
  return {
    port: config.port,
    'event-port': config.eventPort,
    'audio-port': config.audioPort,
    'audio-control-port': config.audioControlPort,
    'timing-port': config.timingPort,
    'ntp-port': config.ntpPort,
    'screen-port': commandLine.screenPort,
    'mirror-port': config.mirrorPort,
  };
}

describe('the table', () => {
  test('every option of both commands is in its --help, and no line is longer than 100 columns', () => {
    const help = receiverHelp();
    for (const row of RECEIVER_OPTIONS) assert.match(help, new RegExp(`^ +(-\\w, )?--${row.name}\\b`, 'm'), row.name);
    const sendHelp = optionsHelp(SENDER_OPTIONS);
    for (const row of SENDER_OPTIONS) assert.match(sendHelp, new RegExp(`^ +(-\\w, )?--${row.name}\\b`, 'm'), row.name);
    assert.deepEqual(
      [...help.split('\n'), ...sendHelp.split('\n')].filter((line) => line.length > 100),
      [],
    );
  });

  test('names are unique, and help texts are one paragraph (wrapped where shown)', () => {
    for (const rows of [RECEIVER_OPTIONS, SENDER_OPTIONS]) {
      const names = rows.map((row) => row.name);
      assert.deepEqual(names, [...new Set(names)]);
      for (const row of rows) assert.doesNotMatch(row.help, /\n/, row.name);
    }
  });

  test('wrap keeps words whole and lines within the width', () => {
    assert.equal(wrap('aa bb cc dd', 8, '  ', '> '), '> aa bb\n  cc dd');
    assert.equal(wrap('averylongword x', 5, ''), 'averylongword\nx');
  });
});

describe('--port: the base of every listener', () => {
  test('without --port: 7000, the spec\'s fixed ports, and free ones for what each SETUP names', () => {
    assert.deepEqual(ports(parse([])), { port: 7000, 'event-port': 0, 'audio-port': 0, 'audio-control-port': 0, 'timing-port': 0, 'ntp-port': 7011, 'screen-port': 7080, 'mirror-port': 7100 });
  });

  test('--port N puts every other port at its offset from N', () => {
    const moved = ports(parse(['--port', '9000']));
    assert.equal(moved.port, 9000);
    for (const [option, offset] of Object.entries(PORT_OFFSETS)) assert.equal(moved[option], 9000 + offset, option);
    assert.deepEqual(moved, { port: 9000, 'event-port': 9001, 'audio-port': 9002, 'audio-control-port': 9003, 'timing-port': 9004, 'ntp-port': 9011, 'screen-port': 9080, 'mirror-port': 9100 });
  });

  test('--port 0 makes every one free; a port given on its own wins', () => {
    assert.deepEqual(Object.values(ports(parse(['--port', '0']))), [0, 0, 0, 0, 0, 0, 0, 0]);
    const mixed = ports(parse(['--port', '9000', '--mirror-port', '7100', '--screen-port', '0']));
    assert.deepEqual([mixed['mirror-port'], mixed['screen-port'], mixed['event-port']], [7100, 0, 9001]);
  });

  test('a base whose offsets pass 65535 is refused in one line, naming the port that would not fit', () => {
    assert.throws(() => parse(['--port', '65500']), { message: '--port 65500: --screen-port would be 65580 (--port + 80), past 65535; give --screen-port or a lower --port' });
    assert.equal(parse(['--port', '65500', '--screen-port', '0', '--mirror-port', '0']).config.port, 65500);
  });
});

describe('--on-event limits', () => {
  test('the hooks\' limits: defaults, given ones (seconds to ms), and a bad one refused in one line', () => {
    assert.deepEqual(parse([]).onEventLimits, { maxRunning: MAX_RUNNING_HOOKS, timeoutMs: HOOK_TIMEOUT_MS });
    assert.deepEqual(parse(['--on-event-max-running', '2', '--on-event-timeout', '5']).onEventLimits, { maxRunning: 2, timeoutMs: 5000 });
    assert.throws(() => parse(['--on-event-timeout', '0']), { message: '--on-event-timeout "0" is not a whole number above 0' });
    assert.throws(() => parse(['--on-event-max-running', 'many']), { message: '--on-event-max-running "many" is not a whole number above 0' });
  });
});

describe('the config file', () => {
  test('KEY = VALUE lines: comments and blanks skipped, blanks around key and value dropped, # inside a value kept', () => {
    assert.deepEqual(configEntries('f', '# comment\n\n  name =  Living room \npassword=a#b\r\nno-mdns = true\n'), [
      { key: 'name', value: 'Living room', line: 3 },
      { key: 'password', value: 'a#b', line: 4 },
      { key: 'no-mdns', value: 'true', line: 5 },
    ]);
    assert.throws(() => configEntries('f', 'name\n'), { message: 'f:1: "name" is not KEY = VALUE' });
  });

  test('values as the parser gives them: flags true or false, repeated keys for repeatable options', () => {
    const file = configValues('f', configEntries('f', 'no-mdns = true\nno-screen = false\nlimit = maxSessions=2\nlimit = maxConnections=9\nport = 7000'), RECEIVER_OPTIONS);
    assert.deepEqual({ ...file.values }, { 'no-mdns': true, limit: ['maxSessions=2', 'maxConnections=9'], port: '7000' });
  });

  test('its settings apply; the command line wins key by key (a repeatable key replaced whole)', () => {
    const file = path.join(dir, 'wins.conf');
    writeFileSync(file, 'name = From file\nlog-level = debug\nlimit = maxSessions=2\nlimit = maxConnections=9\nno-mdns = true\n');
    const fromFile = parse(['--config', file]);
    assert.deepEqual([fromFile.config.name, fromFile.logLevel, fromFile.config.limits.maxSessions, fromFile.config.limits.maxConnections, fromFile.mdns], ['From file', 'debug', 2, 9, false]);
    assert.equal(fromFile.configNote, `config file ${file}`);
    const overridden = parse(['--config', file, '--name', 'From line', '--limit', 'maxSessions=5']);
    assert.deepEqual([overridden.config.name, overridden.logLevel, overridden.config.limits.maxSessions, overridden.config.limits.maxConnections], ['From line', 'debug', 5, 256]);
  });

  test('a bad value names the file, the line and the key; the same value on the command line names the option', () => {
    const file = path.join(dir, 'bad.conf');
    writeFileSync(file, 'name = ok\n\nmirror-size = huge\n');
    assert.throws(() => parse(['--config', file]), { message: `${file}:3: mirror-size: "huge" is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60)` });
    assert.throws(() => parse(['--mirror-size', 'huge']), { message: '--mirror-size "huge" is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60)' });
    // The command line's good value wins over the file's bad one.
    assert.equal(parse(['--config', file, '--mirror-size', '1280x720']).mirrorGeometry.width, 1280);
    writeFileSync(file, 'limit = maxSessions=2\nlimit = maxSessions=0\n');
    assert.throws(() => parse(['--config', file]), { message: `${file}:2: limit: maxSessions=0: value must be a positive integer` });
    writeFileSync(file, 'pin = 12\n');
    assert.throws(() => parse(['--config', file]), { message: `${file}:1: pin: "12" is not 4 to 8 digits or random` });
    writeFileSync(file, 'help = true\n');
    assert.throws(() => parse(['--config', file]), { message: `${file}:1: help: only on the command line` });
  });

  test('found under $XDG_CONFIG_HOME (else ~/.config), then /etc; --config names another', () => {
    assert.deepEqual(configFileCandidates({ XDG_CONFIG_HOME: '/x' }), ['/x/vendorplay/receiver.conf', '/etc/vendorplay/receiver.conf']);
    assert.match(configFileCandidates({})[0], /\/\.config\/vendorplay\/receiver\.conf$/);
    // A relative XDG_CONFIG_HOME is ignored, as the XDG base directory spec says.
    assert.match(configFileCandidates({ XDG_CONFIG_HOME: 'rel' })[0], /\/\.config\/vendorplay\/receiver\.conf$/);
    const home = path.join(dir, 'xdg');
    mkdirSync(path.join(home, 'vendorplay'), { recursive: true });
    const user = path.join(home, 'vendorplay', 'receiver.conf');
    assert.equal(findConfigFile(undefined, [user, path.join(dir, 'etc.conf')]), undefined);
    writeFileSync(path.join(dir, 'etc.conf'), 'name = System\n');
    assert.equal(findConfigFile(undefined, [user, path.join(dir, 'etc.conf')]), path.join(dir, 'etc.conf'));
    writeFileSync(user, 'name = User\n');
    assert.equal(findConfigFile(undefined, [user, path.join(dir, 'etc.conf')]), user);
    assert.equal(findConfigFile('/given', [user]), '/given');
    const read = parse([], { XDG_CONFIG_HOME: home });
    assert.deepEqual([read.config.name, read.configFile], ['User', user]);
    assert.match(parse([]).configNote, /^no config file \(looked for .*no-config\/vendorplay\/receiver\.conf, \/etc\/vendorplay\/receiver\.conf\)$/);
  });
});

test('the version is the nearest package.json of ours above the running file', () => {
  const tree = path.join(dir, 'installed');
  mkdirSync(path.join(tree, 'dist', 'chunks'), { recursive: true });
  writeFileSync(path.join(tree, 'package.json'), JSON.stringify({ name: 'vendorplay-receiver', version: '9.8.7' }));
  writeFileSync(path.join(tree, 'dist', 'package.json'), JSON.stringify({ name: 'something-else', version: '1.0.0' }));
  assert.equal(packageVersion(path.join(tree, 'dist', 'chunks', 'receiver.js')), '9.8.7');
  assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
});
