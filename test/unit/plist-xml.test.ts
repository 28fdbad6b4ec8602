// XML property lists: exact documents as Apple and plistlib write them, every type, entities,
// CDATA, dates, limits, hostile input and seeded mutations. Portable: runs on Node and XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, utf8Decode, utf8Encode } from '../../src/bytes';
import { PlistError, PlistReal, PlistUid, type PlistDict, type PlistValue } from '../../src/plist/value';
import {
  XML_PLIST_DOCTYPE,
  decodeXmlPlist,
  encodeXmlPlist,
  encodeXmlPlistBytes,
  formatReal,
} from '../../src/plist/xml';
import { makeRng, randomPlistValue } from '../support/arbitrary';
import { toTagged } from '../support/tagged';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a PlistError whose message matches `pattern`. */
const throwsPlistError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, PlistError, pattern);


const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
  '<plist version="1.0">\n';
const TAIL = '</plist>\n';
const doc = (body: string) => HEAD + body + TAIL;

/** Decodes a bare value element, without the header. */
const value = (xml: string, exactReals = false) => decodeXmlPlist(xml, { exactReals });

/**
 * `prefix` then `pattern` repeated `count` times, as UTF-8 bytes. Large inputs are built as
 * bytes: on XS, encoding one long string indexes it with charCodeAt, which is slow there.
 */
function tile(prefix: string, pattern: string, count: number): Uint8Array {
  const head = utf8Encode(prefix);
  const unit = utf8Encode(pattern);
  const out = new Uint8Array(head.length + unit.length * count);
  out.set(head, 0);
  for (let i = 0; i < count; i++) out.set(unit, head.length + i * unit.length);
  return out;
}

// -----------------------------------------------------------------------------------------------
// Writing

test('writes a dictionary exactly as plistlib does, keys in insertion order', () => {
  const value: PlistDict = { state: 'playing', settings: { slideDuration: 5, theme: 'Dissolve' }, items: [1, true] };
  assert.equal(
    encodeXmlPlist(value),
    doc(
      '<dict>\n' +
        '\t<key>state</key>\n' +
        '\t<string>playing</string>\n' +
        '\t<key>settings</key>\n' +
        '\t<dict>\n' +
        '\t\t<key>slideDuration</key>\n' +
        '\t\t<integer>5</integer>\n' +
        '\t\t<key>theme</key>\n' +
        '\t\t<string>Dissolve</string>\n' +
        '\t</dict>\n' +
        '\t<key>items</key>\n' +
        '\t<array>\n' +
        '\t\t<integer>1</integer>\n' +
        '\t\t<true/>\n' +
        '\t</array>\n' +
        '</dict>\n',
    ),
  );
});

test('the DOCTYPE constant is the standard Apple plist document type', () => {
  assert.equal(
    XML_PLIST_DOCTYPE,
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
  );
});

test('writes each scalar type in its element', () => {
  assert.equal(encodeXmlPlist('hi'), doc('<string>hi</string>\n'));
  assert.equal(encodeXmlPlist(''), doc('<string></string>\n'));
  assert.equal(encodeXmlPlist(true), doc('<true/>\n'));
  assert.equal(encodeXmlPlist(false), doc('<false/>\n'));
  assert.equal(encodeXmlPlist(-42), doc('<integer>-42</integer>\n'));
  assert.equal(encodeXmlPlist(-0), doc('<integer>0</integer>\n'));
  assert.equal(encodeXmlPlist(Number.MAX_SAFE_INTEGER), doc('<integer>9007199254740991</integer>\n'));
  assert.equal(encodeXmlPlist(2n ** 64n - 1n), doc('<integer>18446744073709551615</integer>\n'));
  assert.equal(encodeXmlPlist(-(2n ** 63n)), doc('<integer>-9223372036854775808</integer>\n'));
  assert.equal(encodeXmlPlist(1.5), doc('<real>1.5</real>\n'));
  assert.equal(encodeXmlPlist(new PlistReal(2)), doc('<real>2.0</real>\n'));
  assert.equal(encodeXmlPlist(new Date(Date.UTC(2024, 1, 29, 13, 5, 9))), doc('<date>2024-02-29T13:05:09Z</date>\n'));
  assert.equal(encodeXmlPlist(new Uint8Array([0, 1, 2, 0xff])), doc('<data>\nAAEC/w==\n</data>\n'));
  assert.equal(encodeXmlPlist(new Uint8Array(0)), doc('<data>\n</data>\n'));
  assert.equal(encodeXmlPlist([]), doc('<array/>\n'));
  assert.equal(encodeXmlPlist({}), doc('<dict/>\n'));
});

test('writes reals as Python repr does, so float() reads back the same double', () => {
  const cases: [number, string][] = [
    [0.1, '0.1'], [1 / 3, '0.3333333333333333'], [123.456, '123.456'], [1e15, '1000000000000000.0'],
    [1e16, '1e+16'], [2 ** 60, '1.152921504606847e+18'], [1.5e-5, '1.5e-05'], [0.0001, '0.0001'],
    [-2.5e-300, '-2.5e-300'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'],
    [100, '100.0'], [-0, '-0.0'], [0, '0.0'], [NaN, 'nan'], [Infinity, 'inf'], [-Infinity, '-inf'],
  ];
  for (const [input, text] of cases) assert.equal(formatReal(input), text, String(input));
  assert.equal(encodeXmlPlist(2 ** 60), doc('<real>1.152921504606847e+18</real>\n'), 'unsafe integral numbers are reals');
  assert.equal(encodeXmlPlist(NaN), doc('<real>nan</real>\n'));
  assert.equal(encodeXmlPlist(new PlistReal(-Infinity)), doc('<real>-inf</real>\n'));
});

test('escapes & < > in strings and keys, and writes CR as a character reference', () => {
  assert.equal(encodeXmlPlist('a<b>&c"\'d'), doc('<string>a&lt;b&gt;&amp;c"\'d</string>\n'));
  assert.equal(encodeXmlPlist({ '<k&>': 1 }), doc('<dict>\n\t<key>&lt;k&amp;&gt;</key>\n\t<integer>1</integer>\n</dict>\n'));
  assert.equal(encodeXmlPlist('a\r\nb\tc'), doc('<string>a&#13;\nb\tc</string>\n'));
  assert.deepEqual(value(encodeXmlPlist('a\r\nb\rc')), 'a\r\nb\rc', 'CR survives the round trip');
});

test('writes strings in UTF-8, astral characters as 4 bytes', () => {
  const bytes = encodeXmlPlistBytes('é😀');
  const body = utf8Encode('<string>é😀</string>');
  const text = utf8Encode(HEAD);
  let at = -1;
  outer: for (let i = 0; i + body.length <= bytes.length; i++) {
    for (let j = 0; j < body.length; j++) if (bytes[i + j] !== body[j]) continue outer;
    at = i;
    break;
  }
  assert.equal(at, text.length);
  assert.deepEqual(Array.from(bytes.subarray(at + 8, at + 14)), [0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80]);
});

test('wraps data in base64 lines of 76 columns less the indent, as plistlib does', () => {
  const data = new Uint8Array(120).fill(0x41);
  assert.equal(
    encodeXmlPlist({ d: data }),
    doc(
      '<dict>\n\t<key>d</key>\n\t<data>\n' +
        '\tQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n' +
        '\tQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n' +
        '\tQUFBQUFBQUFBQUFBQUFBQUFB\n' +
        '\t</data>\n</dict>\n',
    ),
  );
  // Deep enough that 76 - 8 * indent falls below the 16-column floor.
  let nested: PlistValue = new Uint8Array(13).fill(0x42);
  for (let i = 0; i < 9; i++) nested = [nested];
  const lines = encodeXmlPlist(nested).split('\n').filter((line) => /^\t+Q/.test(line));
  assert.deepEqual(lines, ['\t'.repeat(9) + 'QkJCQkJCQkJCQkJC', '\t'.repeat(9) + 'Qg==']);
});

test('drops sub-second parts of dates, rounding down like plistlib', () => {
  assert.equal(encodeXmlPlist(new Date(Date.UTC(2020, 0, 1, 0, 0, 0, 999))), doc('<date>2020-01-01T00:00:00Z</date>\n'));
  assert.equal(encodeXmlPlist(new Date(-1)), doc('<date>1969-12-31T23:59:59Z</date>\n'));
  const early = new Date(0);
  early.setUTCFullYear(5, 0, 2);
  assert.equal(encodeXmlPlist(early), doc('<date>0005-01-02T00:00:00Z</date>\n'));
});

test('refuses values XML cannot hold, naming the key path', () => {
  throwsPlistError(() => encodeXmlPlist({ a: [1, new PlistUid(3)] }), /UID.*at root\.a\[1\]/);
  throwsPlistError(() => encodeXmlPlist({ a: { 'odd key': undefined as unknown as PlistValue } }), /undefined.*at root\.a\["odd key"\]/);
  throwsPlistError(() => encodeXmlPlist([null as unknown as PlistValue]), /null at root\[0\]/);
  throwsPlistError(() => encodeXmlPlist({ f: (() => 1) as unknown as PlistValue }), /function at root\.f/);
  throwsPlistError(() => encodeXmlPlist({ m: new Map() as unknown as PlistValue }), /a Map at root\.m/);
  throwsPlistError(() => encodeXmlPlist(new Uint16Array(2) as unknown as PlistValue), /Uint16Array at root/);
  throwsPlistError(() => encodeXmlPlist(new Date(NaN)), /invalid Date at root/);
  throwsPlistError(() => encodeXmlPlist(new Date(Date.UTC(10000, 0, 1))), /year 10000/);
  throwsPlistError(() => encodeXmlPlist(2n ** 64n), /beyond the 64-bit range/);
  throwsPlistError(() => encodeXmlPlist(-(2n ** 63n) - 1n), /beyond the 64-bit range/);
  const sparse: PlistValue[] = [];
  sparse[2] = 1;
  throwsPlistError(() => encodeXmlPlist(sparse), /undefined at root\[0\]/);
});

test('refuses strings and keys with characters XML 1.0 cannot carry', () => {
  throwsPlistError(() => encodeXmlPlist({ s: 'a\u0001b' }), /string holds a character XML 1.0 cannot carry.*at root\.s/);
  throwsPlistError(() => encodeXmlPlist({ 'k\u0000': 1 }), /key holds/);
  throwsPlistError(() => encodeXmlPlist('\ud800x'), /cannot carry/);
  throwsPlistError(() => encodeXmlPlist('x\udc00'), /cannot carry/);
  throwsPlistError(() => encodeXmlPlist('\uffff'), /cannot carry/);
  assert.equal(encodeXmlPlist('\ud83d\ude00'), doc('<string>😀</string>\n'), 'a surrogate pair is fine');
});

test('refuses a container that contains itself instead of overflowing the stack', () => {
  const dict: PlistDict = { a: 1 };
  dict.self = { inner: [dict] };
  throwsPlistError(() => encodeXmlPlist(dict), /contains itself at root\.self\.inner\[0\]/);
  const array: PlistValue[] = [];
  array.push(array);
  throwsPlistError(() => encodeXmlPlist(array), /contains itself at root\[0\]/);
  const shared = { x: 1 };
  assert.equal(typeof encodeXmlPlist([shared, shared]), 'string', 'the same value twice is not a cycle');
});

test('writes and reads back deep nesting (both walk an explicit stack, not the call stack)', () => {
  // Indentation makes the text quadratic in depth, so the depth stays modest here.
  let nested: PlistValue = 'leaf';
  for (let i = 0; i < 300; i++) nested = [nested];
  const bytes = encodeXmlPlistBytes(nested);
  let back = decodeXmlPlist(bytes, { limits: { maxDepth: 300 } });
  for (let i = 0; i < 300; i++) back = (back as PlistValue[])[0];
  assert.equal(back, 'leaf');
  throwsPlistError(() => decodeXmlPlist(bytes, { limits: { maxDepth: 299 } }), /nesting deeper than 299/);
});

test('a __proto__ key is written and read back as an own entry', () => {
  const dict: PlistDict = {};
  Object.defineProperty(dict, '__proto__', { value: 'x', enumerable: true, writable: true, configurable: true });
  const text = encodeXmlPlist(dict);
  assert.equal(text, doc('<dict>\n\t<key>__proto__</key>\n\t<string>x</string>\n</dict>\n'));
  const back = decodeXmlPlist(text) as PlistDict;
  assert.ok(Object.prototype.hasOwnProperty.call(back, '__proto__'));
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
  assert.equal(back['__proto__'], 'x');
});

// -----------------------------------------------------------------------------------------------
// Reading

test('reads an Apple document with every type', () => {
  const text =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
    '<plist version="1.0">\n<dict>\n' +
    '\t<key>duration</key>\n\t<real>1801</real>\n' +
    '\t<key>position</key>\n\t<real>12.5</real>\n' +
    '\t<key>readyToPlay</key>\n\t<true/>\n' +
    '\t<key>playbackBufferEmpty</key>\n\t<false/>\n' +
    '\t<key>loadedTimeRanges</key>\n\t<array>\n\t\t<dict>\n\t\t\t<key>start</key>\n\t\t\t<real>0.0</real>\n\t\t</dict>\n\t</array>\n' +
    '\t<key>bytes</key>\n\t<integer>1818336</integer>\n' +
    '\t<key>date</key>\n\t<date>2012-03-27T14:12:35Z</date>\n' +
    '\t<key>pk</key>\n\t<data>\n\tAAEC\n\tAw==\n\t</data>\n' +
    '\t<key>uri</key>\n\t<string>http://example.com/a.mp4</string>\n' +
    '</dict>\n</plist>\n';
  assert.deepEqual(decodeXmlPlist(utf8Encode(text)), {
    duration: 1801,
    position: 12.5,
    readyToPlay: true,
    playbackBufferEmpty: false,
    loadedTimeRanges: [{ start: 0 }],
    bytes: 1818336,
    date: new Date(Date.UTC(2012, 2, 27, 14, 12, 35)),
    pk: new Uint8Array([0, 1, 2, 3]),
    uri: 'http://example.com/a.mp4',
  });
});

test('reads reals as PlistReal with exactReals, so integral reals keep their type', () => {
  assert.deepEqual(value('<array><real>2</real><real>2.5</real><integer>2</integer></array>', true), [
    new PlistReal(2),
    new PlistReal(2.5),
    2,
  ]);
  assert.equal(value('<real>2.0</real>'), 2);
});

test('reads entities and character references, including astral code points', () => {
  assert.equal(value('<string>&lt;&gt;&amp;&quot;&apos;</string>'), '<>&"\'');
  assert.equal(value('<string>&#65;&#x42;&#x63;&#0233;</string>'), 'ABcé');
  assert.equal(value('<string>&#x1F600;&#128512;</string>'), '😀😀');
  assert.equal(value('<string>&#x10FFFF;</string>'), '\u{10FFFF}');
  assert.equal(value('<string>a&amp;lt;b</string>'), 'a&lt;b', 'a reference is resolved once');
});

test('rejects unknown entities and references that are not characters', () => {
  throwsPlistError(() => value('<string>&nbsp;</string>'), /unknown entity "&nbsp;" at line 1, column 9/);
  throwsPlistError(() => value('<string>a & b</string>'), /bad entity reference/);
  throwsPlistError(() => value('<string>&#xD800;</string>'), /not a character/);
  throwsPlistError(() => value('<string>&#x110000;</string>'), /not a character/);
  throwsPlistError(() => value('<string>&#0;</string>'), /not a character/);
  throwsPlistError(() => value('<string>&#;</string>'), /bad character reference/);
  throwsPlistError(() => value('<string>&#x12G;</string>'), /bad character reference/);
  throwsPlistError(() => value('<string>&#99999999999999999999999999;</string>'), /not a character/);
});

test('reads CDATA sections, comments and processing instructions inside strings', () => {
  assert.equal(value('<string><![CDATA[<b>&amp;</b>]]></string>'), '<b>&amp;</b>');
  assert.equal(value('<string>a<![CDATA[]]>b<!-- note -->c<?pi x?>d</string>'), 'abcd');
  assert.equal(value('<string><![CDATA[x]]]]><![CDATA[>]]></string>'), 'x]]>');
  throwsPlistError(() => value('<string><![CDATA[abc</string>'), /unclosed CDATA/);
});

test('reads astral and other non-ASCII characters from UTF-8 bytes, skipping a BOM', () => {
  const bytes = utf8Encode('\ufeff<plist><string>é 中 😀 𝄞</string></plist>');
  assert.deepEqual(Array.from(bytes.subarray(0, 3)), [0xef, 0xbb, 0xbf]);
  assert.equal(decodeXmlPlist(bytes), 'é 中 😀 𝄞');
  assert.equal(decodeXmlPlist('\ufeff<string>x</string>'), 'x');
});

test('reads long ASCII and non-ASCII strings whole', () => {
  const ascii = 'abcdefghij'.repeat(1000);
  const wide = 'é中😀'.repeat(2000);
  assert.deepEqual(decodeXmlPlist(encodeXmlPlistBytes([ascii, wide, ascii + wide])), [ascii, wide, ascii + wide]);
});

test('accepts exactly the UTF-8 that bytes.ts utf8Decode accepts (seeded)', () => {
  const rng = makeRng(99);
  const open = utf8Encode('<string>');
  const close = utf8Encode('</string>');
  // Lead bytes, continuation bytes and ASCII, without the bytes markup would act on (< & CR).
  const pool = [0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
  let valid = 0;
  for (let round = 0; round < 3000; round++) {
    const middle = new Uint8Array(rng.int(1, 8));
    for (let i = 0; i < middle.length; i++) middle[i] = rng.pick(pool);
    let expected: string | undefined;
    try {
      expected = utf8Decode(middle);
    } catch {
      expected = undefined;
    }
    const doc = concat(open, middle, close);
    if (expected === undefined) throwsPlistError(() => decodeXmlPlist(doc), /invalid UTF-8 at offset/);
    else {
      assert.equal(decodeXmlPlist(doc), expected);
      valid++;
    }
  }
  assert.ok(valid > 40, `only ${valid} valid samples`);
});

test('normalises CRLF and CR line ends in text to LF, as XML requires', () => {
  assert.equal(value('<string>a\r\nb\rc\nd</string>'), 'a\nb\nc\nd');
  assert.equal(value('<string><![CDATA[a\r\nb\rc]]></string>'), 'a\nb\nc');
  assert.equal(value('<string>a&#13;&#10;b</string>'), 'a\r\nb');
});

test('keeps whitespace inside strings and keys exactly', () => {
  assert.deepEqual(value('<dict><key> k </key><string>\n\t v \n</string></dict>'), { ' k ': '\n\t v \n' });
});

test('reads integers: sign, hex, safe as number, larger as bigint', () => {
  assert.equal(value('<integer>42</integer>'), 42);
  assert.equal(value('<integer> -42 </integer>'), -42);
  assert.equal(value('<integer>+7</integer>'), 7);
  assert.equal(value('<integer>-0</integer>'), 0);
  assert.ok(Object.is(value('<integer>-0</integer>'), 0), 'no negative zero');
  assert.equal(value('<integer>0x1F</integer>'), 31);
  assert.equal(value('<integer>0XfF</integer>'), 255);
  assert.equal(value('<integer>-0x10</integer>'), -16);
  assert.equal(value('<integer>000000000000000000000012</integer>'), 12);
  assert.equal(value('<integer>9007199254740991</integer>'), 9007199254740991);
  assert.equal(value('<integer>-9007199254740991</integer>'), -9007199254740991);
  assert.equal(value('<integer>9007199254740992</integer>'), 9007199254740992n);
  assert.equal(value('<integer>-9223372036854775808</integer>'), -(2n ** 63n));
  assert.equal(value('<integer>18446744073709551615</integer>'), 2n ** 64n - 1n);
  assert.equal(value('<integer>0xFFFFFFFFFFFFFFFF</integer>'), 2n ** 64n - 1n);
  assert.equal(value('<integer>0x1FFFFFFFFFFFFF</integer>'), Number.MAX_SAFE_INTEGER);
});

test('rejects malformed and out-of-range integers', () => {
  for (const bad of ['', ' ', '-', '0x', '1.5', '1e3', '12a', '--1', '1_000', '0b101', 'nan']) {
    throwsPlistError(() => value(`<integer>${bad}</integer>`), /bad <integer>/);
  }
  throwsPlistError(() => value('<integer/>'), /bad <integer> "" at line 1, column 1/);
  throwsPlistError(() => value('<integer>18446744073709551616</integer>'), /out of the 64-bit range/);
  throwsPlistError(() => value('<integer>-9223372036854775809</integer>'), /out of the 64-bit range/);
  throwsPlistError(() => value(`<integer>${'9'.repeat(5000)}</integer>`), /out of the 64-bit range/);
});

test('reads reals in decimal and exponent forms and nan/inf in any case', () => {
  const cases: [string, number][] = [
    ['1.5', 1.5], ['-1.5', -1.5], ['+2', 2], ['.5', 0.5], ['5.', 5], ['1e3', 1000], ['1E+3', 1000], ['2.5e-3', 0.0025],
    [' 0.1 ', 0.1], ['1e400', Infinity], ['inf', Infinity], ['+inf', Infinity], ['-inf', -Infinity], ['-INF', -Infinity],
    ['Infinity', Infinity], ['-infinity', -Infinity], ['1.7976931348623157e+308', 1.7976931348623157e308],
    ['5e-324', 5e-324], ['0.30000000000000004', 0.30000000000000004],
  ];
  for (const [text, expected] of cases) assert.equal(value(`<real>${text}</real>`), expected, text);
  assert.ok(Number.isNaN(value('<real>nan</real>') as number));
  assert.ok(Number.isNaN(value('<real>NaN</real>') as number));
  assert.ok(Number.isNaN((value('<real>-nan</real>', true) as PlistReal).value));
  assert.ok(Object.is(value('<real>-0.0</real>'), -0));
});

test('rejects malformed reals', () => {
  for (const bad of ['', '.', 'e5', '1e', '1e+', '0x10', '1_0', '1.2.3', 'infin', '--1', '1 2', 'Infinityx']) {
    throwsPlistError(() => value(`<real>${bad}</real>`), /bad <real>/);
  }
});

test('reads true and false self-closing and with an empty body', () => {
  assert.deepEqual(value('<array><true/><false/><true></true><false> </false><true />\n</array>'), [true, false, true, false, true]);
  throwsPlistError(() => value('<true>yes</true>'), /unexpected text in <true>/);
});

test('reads dates in the full and the shorter forms plistlib accepts, and fractional seconds', () => {
  const utc = (...parts: number[]) => new Date(Date.UTC(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6]));
  assert.deepEqual(value('<date>2012-03-27T14:12:35Z</date>'), utc(2012, 2, 27, 14, 12, 35, 0));
  assert.deepEqual(value('<date>2012-03-27T14:12Z</date>'), utc(2012, 2, 27, 14, 12, 0, 0));
  assert.deepEqual(value('<date>2012-03-27T14Z</date>'), utc(2012, 2, 27, 14, 0, 0, 0));
  assert.deepEqual(value('<date>2012-03-27Z</date>'), utc(2012, 2, 27, 0, 0, 0, 0));
  assert.deepEqual(value('<date>2012-03Z</date>'), utc(2012, 2, 1, 0, 0, 0, 0));
  assert.deepEqual(value('<date>2012Z</date>'), utc(2012, 0, 1, 0, 0, 0, 0));
  assert.deepEqual(value('<date>2012-03-27T14:12:35.25Z</date>'), utc(2012, 2, 27, 14, 12, 35, 250));
  assert.deepEqual(value('<date>2012-03-27T14:12:35.123999Z</date>'), utc(2012, 2, 27, 14, 12, 35, 123));
  assert.deepEqual(value('<date> 2000-02-29T23:59:59Z </date>'), utc(2000, 1, 29, 23, 59, 59, 0));
  const early = value('<date>0050-06-01T00:00:00Z</date>') as Date;
  assert.equal(early.getUTCFullYear(), 50, 'two-digit years are not shifted to the 1900s');
});

test('rejects impossible and malformed dates', () => {
  const bad = [
    '', '2012', '2012-03-27T14:12:35', '2012-3-27Z', '2012-03-27 14:12:35Z', '2012-13-01Z', '2012-00-01Z',
    '2011-02-29Z', '2012-04-31Z', '2012-03-27T24:00:00Z', '2012-03-27T14:60:00Z', '2012-03-27T14:12:60Z',
    '0000-01-01Z', '2012-03-27T14:12:35.Z', '2012-03-27T14:12:35Zx', '2012-03-27T14:12:35+01:00',
  ];
  for (const text of bad) throwsPlistError(() => value(`<date>${text}</date>`), /bad <date>/);
});

test('reads base64 data with line breaks and indentation', () => {
  assert.deepEqual(value('<data>\n\tAAEC\n\tAwQF\n\tBg==\n\t</data>'), new Uint8Array([0, 1, 2, 3, 4, 5, 6]));
  assert.deepEqual(value('<data>Zm9v</data>'), utf8Encode('foo'));
  throwsPlistError(() => value('<data>Zm9v*</data>'), /bad <data>: invalid base64 character at offset 4/);
});

test('reads the empty forms', () => {
  assert.deepEqual(value('<array><string/><dict/><array/><data/><data></data></array>'), [
    '',
    {},
    [],
    new Uint8Array(0),
    new Uint8Array(0),
  ]);
  assert.deepEqual(value('<dict><key/><string></string></dict>'), { '': '' });
  assert.deepEqual(value('<dict></dict>'), {});
  assert.deepEqual(value('<array>\n</array>'), []);
});

test('accepts a document without the plist wrapper, as plistlib does', () => {
  assert.deepEqual(decodeXmlPlist('<?xml version="1.0"?>\n<dict><key>a</key><integer>1</integer></dict>\n'), { a: 1 });
  assert.equal(decodeXmlPlist('<string>bare</string>'), 'bare');
});

test('skips the prolog, comments and processing instructions between elements, and ignores attributes', () => {
  const text =
    "<?xml version='1.0' encoding='utf-8' standalone=\"yes\"?>\n<!-- c1 -->\n<?app data?>\n" +
    '<!DOCTYPE plist SYSTEM "file://localhost/System/Library/DTDs/PropertyList.dtd">\n' +
    '<plist version="1.0" xmlns:x=\'y\'>\n<!-- c2 -->\n<dict a="1">\n<!-- c3 --><key>k</key><!-- c4 -->\n<string  id = "s" >v</string >\n</dict >\n</plist>\n<!-- c5 -->\n';
  assert.deepEqual(decodeXmlPlist(utf8Encode(text)), { k: 'v' });
});

test('keeps the last value of a repeated key, as plistlib does', () => {
  assert.deepEqual(value('<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>'), { a: 2 });
});

// -----------------------------------------------------------------------------------------------
// Errors

test('names the unexpected end tag, its line and the expected one', () => {
  const text = '<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<string>x</string>\n</array>\n</plist>\n';
  throwsPlistError(() => decodeXmlPlist(text), /^xml plist: unexpected <\/array> at line 5, column 1, expected <\/dict>$/);
});

test('rejects unclosed tags and documents cut short', () => {
  throwsPlistError(() => decodeXmlPlist('<plist><dict><key>a</key><string>b</string>'), /unexpected end of document at line 1, column 44, expected <\/dict>/);
  throwsPlistError(() => decodeXmlPlist('<plist><dict></dict>'), /unexpected end of document.*expected <\/plist>/);
  throwsPlistError(() => decodeXmlPlist('<plist><string>abc'), /unclosed <string>/);
  throwsPlistError(() => decodeXmlPlist('<plist><string'), /unclosed tag <string/);
  throwsPlistError(() => decodeXmlPlist('<plist><string a="1'), /unclosed attribute value/);
  throwsPlistError(() => decodeXmlPlist('<plist><!-- never closed'), /unclosed comment/);
  throwsPlistError(() => decodeXmlPlist('<?xml version="1.0"'), /unclosed processing instruction/);
  throwsPlistError(() => decodeXmlPlist('<!DOCTYPE plist "x'), /unclosed <!DOCTYPE/);
  throwsPlistError(() => decodeXmlPlist('<plist><string>a</stri'), /malformed end tag <\/stri/);
});

test('rejects mismatched, unknown and misplaced elements', () => {
  throwsPlistError(() => value('<string>a</key>'), /unexpected <\/key> at line 1, column 10, expected <\/string>/);
  throwsPlistError(() => value('<array><foo/></array>'), /unknown element <foo\/> at line 1, column 8/);
  throwsPlistError(() => value('<array><key>a</key></array>'), /unexpected <key> in <array>/);
  throwsPlistError(() => value('<key>a</key>'), /unexpected <key> outside a <dict>/);
  throwsPlistError(() => value('<dict><string>a</string></dict>'), /unexpected <string> in <dict>.*expected <key>/);
  throwsPlistError(() => value('<dict><key>a</key></dict>'), /missing value for key "a"/);
  throwsPlistError(() => value('<dict><key>a</key><key>b</key></dict>'), /unknown|unexpected <key>/);
  throwsPlistError(() => value('<array><plist/></array>'), /unexpected <plist> inside a value/);
  throwsPlistError(() => value('<string>a<b>c</b></string>'), /unexpected <b> inside <string>/);
  throwsPlistError(() => value('<integer>1<!x></integer>'), /unexpected "<!x>/);
  throwsPlistError(() => value('<array><![CDATA[x]]></array>'), /CDATA section outside a string/);
  throwsPlistError(() => value('</array>'), /unexpected <\/array>/);
  throwsPlistError(() => value('<array><1/></array>'), /malformed tag/);
  throwsPlistError(() => value('<array x></array>'), /malformed attribute/);
  throwsPlistError(() => value('<array x=1></array>'), /malformed attribute/);
  throwsPlistError(() => value('<arrayx="1"></array>'), /malformed tag/);
});

test('rejects text between elements, trailing garbage and a second root value', () => {
  throwsPlistError(() => value('<array>x<true/></array>'), /unexpected text "x<true\/><\/array>" at line 1, column 8/);
  throwsPlistError(() => decodeXmlPlist('<plist><true/></plist>garbage'), /unexpected text "garbage"/);
  throwsPlistError(() => decodeXmlPlist('<plist><true/></plist><false/>'), /unexpected <false\/> after the root value/);
  throwsPlistError(() => decodeXmlPlist('<true/><false/>'), /unexpected <false\/> after the root value/);
  throwsPlistError(() => decodeXmlPlist('<plist><string>a</string><string>b</string></plist>'), /unexpected <string>.*expected <\/plist>/);
  throwsPlistError(() => decodeXmlPlist('<plist><true/></plist><!DOCTYPE x>'), /unexpected "<!DOCTYPE x>"/);
});

test('rejects empty documents and an empty plist element', () => {
  throwsPlistError(() => decodeXmlPlist(''), /no root element/);
  throwsPlistError(() => decodeXmlPlist(new Uint8Array(0)), /no root element/);
  throwsPlistError(() => decodeXmlPlist('<?xml version="1.0"?>\n<!-- only -->\n'), /no root element/);
  throwsPlistError(() => decodeXmlPlist('<plist version="1.0"/>'), /empty <plist\/>/);
  throwsPlistError(() => decodeXmlPlist('<plist version="1.0"></plist>'), /unexpected <\/plist>.*expected a value in <plist>/);
});

test('rejects a DOCTYPE internal subset (entity declarations), as plistlib does', () => {
  throwsPlistError(
    () => decodeXmlPlist('<!DOCTYPE plist [<!ENTITY x "boom">]><plist><string>&x;</string></plist>'),
    /internal subsets are not supported/,
  );
});

test('rejects invalid UTF-8, UTF-16 and declared encodings other than UTF-8', () => {
  const bad = utf8Encode('<plist>\n<string>ab</string></plist>');
  bad[17] = 0xff;
  throwsPlistError(() => decodeXmlPlist(bad), /invalid UTF-8 at offset 17 \(line 2\)/);
  throwsPlistError(() => decodeXmlPlist(new Uint8Array([0x3c, 0xc0, 0x80, 0x3e])), /invalid UTF-8 at offset 1/);
  throwsPlistError(() => decodeXmlPlist(new Uint8Array([0xfe, 0xff, 0, 0x3c])), /UTF-16/);
  throwsPlistError(() => decodeXmlPlist(utf8Encode('<?xml version="1.0" encoding="ISO-8859-1"?><string>é</string>')), /unsupported encoding "ISO-8859-1"/);
  assert.equal(decodeXmlPlist(utf8Encode('<?xml version="1.0" encoding="us-ascii"?><string>x</string>')), 'x');
});

test('rejects input that is neither bytes nor a string', () => {
  throwsPlistError(() => decodeXmlPlist(42 as unknown as string), /neither bytes nor a string/);
});

// -----------------------------------------------------------------------------------------------
// Limits and hostile input

test('enforces maxBytes on bytes and on strings', () => {
  const text = '<string>' + 'x'.repeat(100) + '</string>';
  assert.equal((decodeXmlPlist(text, { limits: { maxBytes: text.length } }) as string).length, 100);
  throwsPlistError(() => decodeXmlPlist(utf8Encode(text), { limits: { maxBytes: text.length - 1 } }), /exceed the limit of/);
  throwsPlistError(() => decodeXmlPlist(text, { limits: { maxBytes: text.length - 1 } }), /exceed the limit of/);
  const wide = '<string>' + 'é'.repeat(40) + '</string>';
  throwsPlistError(() => decodeXmlPlist(wide, { limits: { maxBytes: wide.length + 10 } }), /exceed the limit/);
  assert.equal(decodeXmlPlist(wide, { limits: { maxBytes: wide.length + 40 } }), 'é'.repeat(40));
});

test('enforces maxDepth exactly, empty containers included', () => {
  const nest = (depth: number, inner: string) => '<array>'.repeat(depth - 1) + inner + '</array>'.repeat(depth - 1);
  assert.ok(decodeXmlPlist(nest(4, '<array/>'), { limits: { maxDepth: 4 } }));
  throwsPlistError(() => decodeXmlPlist(nest(5, '<array/>'), { limits: { maxDepth: 4 } }), /nesting deeper than 4 at line 1, column 29/);
  throwsPlistError(() => decodeXmlPlist(nest(5, '<dict></dict>'), { limits: { maxDepth: 4 } }), /nesting deeper than 4/);
});

test('stops deep nesting at the default limit, far from any stack overflow', () => {
  throwsPlistError(() => decodeXmlPlist(tile('<plist>', '<array>', 200000)), /nesting deeper than 64/);
  throwsPlistError(() => decodeXmlPlist(tile('', '<dict><key>a</key>', 100000)), /nesting deeper than 64/);
});

test('enforces maxObjects, counting keys and values', () => {
  const array = '<array>' + '<true/>'.repeat(9) + '</array>';
  assert.equal((decodeXmlPlist(array, { limits: { maxObjects: 10 } }) as boolean[]).length, 9);
  throwsPlistError(() => decodeXmlPlist(array, { limits: { maxObjects: 9 } }), /more than 9 objects/);
  const dict = '<dict><key>a</key><true/><key>b</key><true/></dict>';
  assert.ok(decodeXmlPlist(dict, { limits: { maxObjects: 5 } }));
  throwsPlistError(() => decodeXmlPlist(dict, { limits: { maxObjects: 4 } }), /more than 4 objects/);
});

test('decodes a large flat document', () => {
  const count = 5000;
  const items: PlistValue[] = [];
  for (let i = 0; i < count; i++) items.push(i % 3 === 0 ? i : i % 3 === 1 ? `s${i}` : { k: i });
  const back = decodeXmlPlist(encodeXmlPlistBytes(items)) as PlistValue[];
  assert.equal(back.length, count);
  assert.deepEqual(back, items);
});

test('long runs of unterminated markup fail fast with a PlistError', () => {
  throwsPlistError(() => decodeXmlPlist(tile('<plist><string>', '&', 100000)), /bad entity reference/);
  throwsPlistError(() => decodeXmlPlist(tile('<plist><string>', '<', 100000)), /malformed tag/);
  throwsPlistError(() => decodeXmlPlist(tile('<', 'a', 100000)), /unclosed tag/);
  throwsPlistError(() => decodeXmlPlist(tile('', '<!--', 50000)), /unclosed comment/);
  throwsPlistError(() => decodeXmlPlist(tile('<plist>', ' ', 100000)), /unexpected end of document/);
  throwsPlistError(() => decodeXmlPlist(tile('<plist><integer>', '9', 100000)), /unclosed <integer>/);
  const digits = concat(tile('<integer>', '9', 100000), utf8Encode('</integer>'));
  throwsPlistError(() => decodeXmlPlist(digits), /<integer> "9{40}\.\.\." is out of the 64-bit range/);
  const real = concat(tile('<real>0.', '1', 100000), utf8Encode('</real>'));
  assert.equal(decodeXmlPlist(real), 0.1111111111111111);
});

// -----------------------------------------------------------------------------------------------
// Round trips and mutations

test('random values survive encode then decode with exactReals (seeded)', () => {
  const rng = makeRng(20240501);
  for (let i = 0; i < 300; i++) {
    const original = randomPlistValue(rng, { maxDepth: 4, maxEntries: 5 });
    const back = decodeXmlPlist(encodeXmlPlistBytes(original), { exactReals: true });
    assert.deepEqual(toTagged(back), toTagged(original), `value ${i}`);
  }
});

test('every mutation of a valid document decodes or throws PlistError, nothing else (seeded)', () => {
  const rng = makeRng(77);
  const base = encodeXmlPlistBytes({
    s: 'a&b<c>é😀',
    i: [1, -2, 2n ** 63n, 0],
    r: [new PlistReal(2), 0.1, NaN, -Infinity],
    b: [true, false],
    d: new Date(Date.UTC(2020, 1, 29, 1, 2, 3)),
    x: new Uint8Array([1, 2, 3, 4, 5]),
    n: { e: {}, a: [], z: '' },
  });
  const tokens = ['<', '>', '/', '&', ';', '<dict>', '</dict>', '<key>', '<![CDATA[', ']]>', '<!--', '-->', '"', '\n', '\r', '#x', '\u00ff'];
  let decoded = 0;
  let rejected = 0;
  for (let round = 0; round < 3000; round++) {
    let doc = base;
    const edits = rng.int(1, 4);
    for (let e = 0; e < edits; e++) {
      const at = rng.int(0, doc.length);
      const kind = rng.int(0, 4);
      if (kind === 0 && doc.length > 0) {
        const copy = doc.slice();
        copy[Math.min(at, copy.length - 1)] = rng.int(0, 255);
        doc = copy;
      } else if (kind === 1) {
        doc = concat(doc.subarray(0, at), doc.subarray(Math.min(doc.length, at + rng.int(1, 12))));
      } else if (kind === 2) {
        doc = concat(doc.subarray(0, at), utf8Encode(rng.pick(tokens)), doc.subarray(at));
      } else if (kind === 3) {
        const from = rng.int(0, doc.length);
        doc = concat(doc.subarray(0, at), doc.subarray(from, Math.min(doc.length, from + rng.int(1, 40))), doc.subarray(at));
      } else {
        doc = doc.subarray(0, at);
      }
    }
    try {
      decodeXmlPlist(doc, { limits: { maxDepth: 16, maxObjects: 1000 } });
      decoded++;
    } catch (error) {
      if (!(error instanceof PlistError)) assert.fail(`round ${round}: ${String(error)}`);
      rejected++;
    }
  }
  assert.equal(decoded + rejected, 3000);
  assert.ok(decoded > 0 && rejected > 0, `decoded ${decoded}, rejected ${rejected}`);
});

test('random garbage decodes or throws PlistError (seeded)', () => {
  const rng = makeRng(5);
  const alphabet = '<>/!?[]-&#;x0123456789abcdefgiklnprstuy"\'= \n\tCDATAplistdictarraykeystringintegerrealtruefalsedatedata';
  for (let round = 0; round < 1000; round++) {
    let text = '';
    const length = rng.int(0, 80);
    for (let i = 0; i < length; i++) text += alphabet[rng.int(0, alphabet.length - 1)];
    try {
      decodeXmlPlist(rng.next() < 0.5 ? text : '<plist>' + text);
    } catch (error) {
      if (!(error instanceof PlistError)) assert.fail(`${JSON.stringify(text)}: ${String(error)}`);
    }
    const bytes = rng.bytes(rng.int(0, 64));
    try {
      decodeXmlPlist(bytes);
    } catch (error) {
      if (!(error instanceof PlistError)) assert.fail(`bytes: ${String(error)}`);
    }
  }
});
