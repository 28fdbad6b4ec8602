import { runInXs } from './xsnap';
import { bundlePortableSuites } from './bundle';
let script = await bundlePortableSuites(['/work/main/test/unit/plist-binary.test.ts']);
const filter = process.argv[2];
script = script.replace('print(`ok - ${entry.name}`);', 'print(`ok - ${entry.name} ${Date.now() - __t0}`);').replace('await entry.fn();', 'if (!entry.name.includes(' + JSON.stringify(filter) + ')) continue; print("start " + entry.name); var __t0 = Date.now(); await entry.fn();');
try {
const run = await runInXs(script, 100000);
console.log(run.stdout, run.error, run.meter);
} catch (e) { console.log(String(e)); }
