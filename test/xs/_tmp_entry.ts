import { encodeBinaryPlist, decodeBinaryPlist } from '../../src/plist/binary';
declare function print(...v: unknown[]): void;
function time(label: string, f: () => void) { const t = Date.now(); f(); print(label, Date.now() - t, 'ms'); }
time('encode 2000 ints', () => encodeBinaryPlist(Array.from({ length: 2000 }, (_, i) => i)));
const d = encodeBinaryPlist(Array.from({ length: 2000 }, (_, i) => i));
time('decode 2000 ints', () => decodeBinaryPlist(d));
time('encode 5000 str', () => encodeBinaryPlist('x'.repeat(5000)));
const s = encodeBinaryPlist('x'.repeat(5000));
time('decode 5000 str', () => decodeBinaryPlist(s));
const w = encodeBinaryPlist('é'.repeat(5000));
time('decode 5000 wstr', () => decodeBinaryPlist(w));
time('encode data 70000', () => encodeBinaryPlist(new Uint8Array(70000)));
const small = encodeBinaryPlist({ a: [1, 2.5, 'abc', { b: true }] });
time('decode small x100', () => { for (let i = 0; i < 100; i++) decodeBinaryPlist(small); });
