// `vendorplay-receiver pairings list|remove ID|clear [--data-dir DIR]`: the paired senders of a
// data directory, listed or removed by a person at the computer, without starting a receiver
// (a full table must be recoverable without deleting files by hand). It works on the
// same record the receiver uses (src/pairing/peers.ts), which the receiver reads on every use,
// so a running receiver sees the change at its next pair-setup or pair-verify.

import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toHex } from '../../src/bytes';
import { StorageError, permissionName, PeerStore, RECORD_MAX_PEERS } from '../../src/pairing';
import { consoleLogger, defaultDataDir, fileStore, StoreFileError } from './io/ports';

const PAIRINGS_USAGE = `Usage: vendorplay-receiver pairings list|remove ID|clear [--data-dir DIR]

The senders paired with the receiver whose data is in DIR
(default: ${defaultDataDir()}).

  list        one line per pairing: identifier, admin or user, public key (hex)
  remove ID   removes the pairing of sender ID (as list shows it)
  clear       removes every pairing; senders pair again with the PIN
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
    output.err(`vendorplay-receiver pairings: ${message} (usage: vendorplay-receiver pairings list|remove ID|clear [--data-dir DIR])`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    return usage((error as Error).message.split(/\.\s/)[0]);
  }
  if (parsed.values.help) {
    output.out(PAIRINGS_USAGE.trimEnd());
    return 0;
  }
  const [action, ...rest] = parsed.positionals;
  const expected = action === 'remove' ? 1 : 0;
  if (action !== 'list' && action !== 'remove' && action !== 'clear') return usage(action === undefined ? 'say list, remove ID or clear' : `unknown action "${action}"`);
  if (rest.length !== expected) return usage(action === 'remove' ? 'remove takes one identifier' : `${action} takes no argument`);

  const dataDir = parsed.values['data-dir'] ?? defaultDataDir();
  const fail = (message: string): number => {
    output.err(`vendorplay-receiver pairings: ${message}`);
    return 1;
  };
  // An existing directory only: a mistyped path must not become a new, empty data directory.
  try {
    if (!statSync(dataDir).isDirectory()) return fail(`${dataDir} is not a directory`);
  } catch {
    return fail(`no data directory ${dataDir} (give the receiver's with --data-dir DIR)`);
  }
  try {
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
