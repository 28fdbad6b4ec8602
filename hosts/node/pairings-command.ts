// `vendorplay-receiver pairings list|remove ID|clear|reset-tries [--data-dir DIR] [--config FILE]`: the paired
// senders of a data directory, listed or removed by a person at the computer, without starting a
// receiver (a full table must be recoverable without deleting files by hand); and the count of
// wrong PINs reset, which past limits.pairingMaxFailures locks pairing with a fixed PIN out. It
// works on the same records the receiver uses (src/pairing/peers.ts, pair-setup.ts' TRIES_KEY),
// which the receiver reads again on use, so a running receiver sees the change at its next
// pair-setup or pair-verify. The data directory is the receiver's: --data-dir, else the one its
// config file names (--config, else the receiver's default places: a service's receiver.conf),
// else the default.

import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toHex } from '../../src/bytes';
import { StorageError, permissionName, PeerStore, RECORD_MAX_PEERS } from '../../src/pairing';
import { TRIES_KEY } from '../../src/pairing/pair-setup';
import { ConfigError } from '../../src/receiver';
import { findConfigFile, readConfigFile } from './config-file';
import { consoleLogger, defaultDataDir, fileStore, StoreFileError } from './io/ports';
import { RECEIVER_OPTIONS } from './receiver-options';

const PAIRINGS_USAGE = `Usage: vendorplay-receiver pairings list|remove ID|clear|reset-tries [--data-dir DIR] [--config FILE]

The senders paired with the receiver whose data is in DIR (default: the data-dir of the
receiver's config file, FILE or the first of its default places, else ${defaultDataDir()}).

  list        one line per pairing: identifier, admin or user, public key (hex)
  remove ID   removes the pairing of sender ID (as list shows it)
  clear       removes every pairing; senders pair again with the PIN
  reset-tries resets the count of wrong PINs (past limits.pairingMaxFailures pairing with a
              fixed PIN or password is refused until it is reset)
`;

/** Where the command writes: standard output and standard error, one line each call. */
interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

const processOutput: CommandOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs the command on `argv` (what follows `pairings`); the exit status: 0 done, 1 failed, 2 usage. */
export function runPairingsCommand(argv: string[], output: CommandOutput = processOutput): number {
  const usage = (message: string): number => {
    output.err(`vendorplay-receiver pairings: ${message} (usage: vendorplay-receiver pairings list|remove ID|clear|reset-tries [--data-dir DIR] [--config FILE])`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { 'data-dir': { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    return usage((error as Error).message.split(/\.\s/)[0]);
  }
  if (parsed.values.help) {
    output.out(PAIRINGS_USAGE.trimEnd());
    return 0;
  }
  const [action, ...rest] = parsed.positionals;
  const expected = action === 'remove' ? 1 : 0;
  if (action !== 'list' && action !== 'remove' && action !== 'clear' && action !== 'reset-tries') {
    return usage(action === undefined ? 'say list, remove ID, clear or reset-tries' : `unknown action "${action}"`);
  }
  if (rest.length !== expected) return usage(action === 'remove' ? 'remove takes one identifier' : `${action} takes no argument`);

  const fail = (message: string): number => {
    output.err(`vendorplay-receiver pairings: ${message}`);
    return 1;
  };
  let dataDir = parsed.values['data-dir'];
  if (dataDir === undefined) {
    try {
      dataDir = configuredDataDir(parsed.values.config);
    } catch (error) {
      if (error instanceof ConfigError) return fail(error.message);
      throw error;
    }
  }
  dataDir ??= defaultDataDir();
  // An existing directory only: a mistyped path must not become a new, empty data directory.
  try {
    if (!statSync(dataDir).isDirectory()) return fail(`${dataDir} is not a directory`);
  } catch {
    return fail(`no data directory ${dataDir} (give the receiver's with --data-dir DIR)`);
  }
  try {
    if (action === 'reset-tries') return resetTries(fileStore(dataDir), dataDir, output);
    const peers = new PeerStore(fileStore(dataDir), consoleLogger('error'), RECORD_MAX_PEERS);
    if (action === 'list') {
      const all = peers.all();
      output.out(`${all.length} pairing${all.length === 1 ? '' : 's'} in ${dataDir}`);
      for (const peer of all) output.out(`${peer.id}  ${permissionName(peer.permissions)}  ${toHex(peer.publicKey)}`);
      return 0;
    }
    if (action === 'remove') {
      const id = rest[0];
      if (!peers.remove(id)) {
        const known = peers.all().map((peer) => peer.id);
        return fail(`no pairing "${id}" in ${dataDir} (${known.length === 0 ? 'none are paired' : `paired: ${known.join(', ')}`})`);
      }
      output.out(`removed the pairing of ${id}; ${peers.size} left`);
      return 0;
    }
    const count = peers.clear();
    output.out(`removed ${count} pairing${count === 1 ? '' : 's'} from ${dataDir}`);
    return 0;
  } catch (error) {
    if (error instanceof StorageError || error instanceof StoreFileError) return fail(error.message);
    throw error;
  }
}

/** Deletes the stored count of wrong PINs; says what it was. */
function resetTries(store: ReturnType<typeof fileStore>, dataDir: string, output: CommandOutput): number {
  const bytes = store.get(TRIES_KEY);
  const count = bytes && bytes.length === 4 ? new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0) : 0;
  store.delete(TRIES_KEY);
  output.out(`reset the count of wrong PINs in ${dataDir} (it was ${count}); pairing with the PIN is allowed again`);
  return 0;
}

/** The data-dir of the receiver's config file (`given`, else the first of its default places), if it names one. */
function configuredDataDir(given: string | undefined): string | undefined {
  const file = findConfigFile(given);
  if (file === undefined) return undefined;
  const value = readConfigFile(file, RECEIVER_OPTIONS).values['data-dir'];
  return typeof value === 'string' ? value : undefined;
}
