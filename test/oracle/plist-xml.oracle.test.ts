// XML plist codec against Python's plistlib: random values both ways, the spec's sample shapes,
// byte-for-byte agreement with plistlib's writer, and the edge documents both readers accept
// or both refuse. Node only (runs python3).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import { PlistError, type PlistValue } from '../../src/plist/value';
import { decodeXmlPlist, encodeXmlPlistBytes } from '../../src/plist/xml';
import type { ArbitraryOptions } from '../support/arbitrary';
import { randomBatch, sortedCopy } from '../support/plist-cases';
import { plistlibDumps, plistlibLoads, toTagged, type Tagged } from '../support/oracle';
import { PLIST_SAMPLES } from '../vectors/plist-samples';

/** Seeded batches: each batch is one python3 run. XML has no UID, so none are generated. */
const BATCHES: { seed: number; count: number; options: ArbitraryOptions }[] = [
  { seed: 101, count: 250, options: {} },
  { seed: 102, count: 200, options: { maxDepth: 6, maxEntries: 10 } },
  { seed: 103, count: 150, options: { maxDepth: 2, maxEntries: 40 } },
];

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('our XML writer, read by plistlib', () => {
  for (const { seed, count, options } of BATCHES) {
    test(`plistlib reads back exactly what we wrote (seed ${seed}, ${count} random values)`, () => {
      const values = randomBatch(seed, count, options);
      const loaded = plistlibLoads(values.map(encodeXmlPlistBytes));
      for (let i = 0; i < values.length; i++) assert.deepEqual(loaded[i], toTagged(values[i]), `value ${i}`);
    });
  }

  test('our bytes equal plistlib.dumps byte for byte (same key order)', () => {
    const values = randomBatch(104, 300, { maxDepth: 5, maxEntries: 8 })
      .map(sortedCopy)
      .filter((value): value is PlistValue => value !== undefined);
    assert.ok(values.length > 250, `only ${values.length} comparable values`);
    const theirs = plistlibDumps(values, 'xml');
    for (let i = 0; i < values.length; i++) assert.equal(text(encodeXmlPlistBytes(values[i])), text(theirs[i]), `value ${i}`);
  });
});

describe('plistlib XML, read by our reader', () => {
  for (const { seed, count, options } of BATCHES) {
    test(`we read exactly what plistlib wrote, reals kept as reals (seed ${seed}, ${count} random values)`, () => {
      const values = randomBatch(seed + 1000, count, options);
      const docs = plistlibDumps(values, 'xml');
      for (let i = 0; i < values.length; i++) {
        assert.deepEqual(toTagged(decodeXmlPlist(docs[i], { exactReals: true })), toTagged(values[i]), `value ${i}`);
      }
    });
  }
});

describe("the spec's sample shapes", () => {
  const names = Object.keys(PLIST_SAMPLES);

  test('plistlib reads each sample as we wrote it', () => {
    const loaded = plistlibLoads(names.map((name) => encodeXmlPlistBytes(PLIST_SAMPLES[name])));
    names.forEach((name, i) => assert.deepEqual(loaded[i], toTagged(PLIST_SAMPLES[name]), name));
  });

  test('we read each sample as plistlib wrote it', () => {
    const docs = plistlibDumps(names.map((name) => PLIST_SAMPLES[name]), 'xml');
    names.forEach((name, i) => {
      assert.deepEqual(toTagged(decodeXmlPlist(docs[i], { exactReals: true })), toTagged(PLIST_SAMPLES[name]), name);
    });
  });

  test('our bytes for each sample equal plistlib.dumps', () => {
    const values = names.map((name) => sortedCopy(PLIST_SAMPLES[name]) as PlistValue);
    const theirs = plistlibDumps(values, 'xml');
    names.forEach((name, i) => assert.equal(text(encodeXmlPlistBytes(values[i])), text(theirs[i]), name));
  });
});

describe('edge documents', () => {
  const body = (inner: string) =>
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" ' +
    `"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n${inner}\n</plist>\n`;

  /** Documents in the liberal forms both readers accept; each must give the same value. */
  const ACCEPTED: string[] = [
    body('<integer>0x1F</integer>'),
    body('<integer>0XfF</integer>'),
    body('<integer> -12 </integer>'),
    body('<integer>+7</integer>'),
    body('<integer>18446744073709551615</integer>'),
    body('<integer>-9223372036854775808</integer>'),
    body('<real>.5</real>'),
    body('<real>5.</real>'),
    body('<real> 1E+3 </real>'),
    body('<real>-INF</real>'),
    body('<real>Infinity</real>'),
    body('<real>nan</real>'),
    body('<real>-0.0</real>'),
    body('<real>0.1000000000000000055511151231257827</real>'),
    body('<date>2012-03-27Z</date>'),
    body('<date>2012-03-27T14Z</date>'),
    body('<date>2012-03-27T14:12Z</date>'),
    body('<date> 2012-03-27T14:12:35Z</date>'.replace(' ', '')),
    body('<string>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;&#128512;</string>'),
    body('<string><![CDATA[<raw & text>]]> and more</string>'),
    body('<string>a\r\nb\rc</string>'),
    body('<string>a<!-- gone -->b</string>'),
    body('<string/>'),
    body('<array><true></true><false/><data></data><dict/><array></array></array>'),
    body('<data>\n\tAAEC\n\tAw==\n\t</data>'),
    body('<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>'),
    body('<dict><key/><string>empty key</string></dict>'),
    body('<dict>\n<!-- note -->\n<key>k</key>\n<?pi x?>\n<string>v</string>\n</dict>'),
    '<?xml version="1.0"?>\n<dict><key>no</key><string>wrapper</string></dict>',
    '<?xml version="1.0"?><array><string>é 中 😀</string></array>',
    '\ufeff<plist><true/></plist>',
    "<plist version='1.0'><string  a = 'x' >attrs</string ></plist>",
  ];

  test('documents in liberal forms read the same in both readers', () => {
    const docs = ACCEPTED.map((doc) => utf8Encode(doc));
    const theirs = plistlibLoads(docs);
    docs.forEach((doc, i) => {
      assert.ok(!('error' in theirs[i]), `plistlib refused ${JSON.stringify(ACCEPTED[i])}: ${JSON.stringify(theirs[i])}`);
      assert.deepEqual(toTagged(decodeXmlPlist(doc, { exactReals: true })), theirs[i] as Tagged, ACCEPTED[i]);
    });
  });

  /** Documents both readers refuse. */
  const REFUSED: string[] = [
    body('<dict><key>a</key><string>x</string></array>'),
    body('<dict><key>a</key></dict>'),
    body('<array><key>a</key></array>'),
    body('<dict><string>no key</string></dict>'),
    body('<integer>12a</integer>'),
    body('<integer/>'),
    body('<integer>1.5</integer>'),
    body('<real>1e</real>'),
    body('<real/>'),
    body('<date>2012-02-30T00:00:00Z</date>'),
    body('<date>2012-03-27T24:00:00Z</date>'),
    body('<date>2012-03-27T14:12:35</date>'),
    '<plist><string>&nbsp;</string></plist>',
    body('<string>unclosed'),
    body('<string>a</string'),
    '<!DOCTYPE plist [<!ENTITY e "x">]><plist><string>&e;</string></plist>',
    '<plist><dict>',
    '',
  ];

  test('malformed documents are refused by both readers', () => {
    const docs = REFUSED.map((doc) => utf8Encode(doc));
    const theirs = plistlibLoads(docs);
    docs.forEach((doc, i) => {
      assert.ok('error' in theirs[i], `plistlib accepted ${JSON.stringify(REFUSED[i])}: ${JSON.stringify(theirs[i])}`);
      assert.throws(() => decodeXmlPlist(doc), PlistError, REFUSED[i]);
    });
    const invalidUtf8 = utf8Encode(body('<string>ab</string>'));
    invalidUtf8[invalidUtf8.length - 22] = 0xff;
    assert.ok('error' in plistlibLoads([invalidUtf8])[0]);
    assert.throws(() => decodeXmlPlist(invalidUtf8), /invalid UTF-8/);
  });

  test('deliberate differences: we are stricter where plistlib would lose data or is picky about the start', () => {
    // After an external DOCTYPE, expat skips an unknown entity, so plistlib reads "" here.
    const skipped = utf8Encode(body('<string>&nbsp;</string>'));
    assert.deepEqual(plistlibLoads([skipped])[0], { t: 'str', v: '' });
    assert.throws(() => decodeXmlPlist(skipped), /unknown entity "&nbsp;"/);
    // plistlib keeps the last of two values in <plist>; we refuse the document.
    const two = utf8Encode('<plist><string>a</string><string>b</string></plist>');
    assert.deepEqual(plistlibLoads([two])[0], { t: 'str', v: 'b' });
    assert.throws(() => decodeXmlPlist(two), /unexpected <string>.*expected <\/plist>/);
    // plistlib ignores unknown elements; we refuse them.
    const unknown = utf8Encode('<plist><array><foo/><true/></array></plist>');
    assert.deepEqual(plistlibLoads([unknown])[0], { t: 'array', v: [{ t: 'bool', v: true }] });
    assert.throws(() => decodeXmlPlist(unknown), /unknown element <foo\/>/);
    // plistlib.loads only recognises XML that starts with <?xml or <plist; we also read a bare value.
    const bare = utf8Encode('<dict><key>a</key><integer>1</integer></dict>');
    assert.ok('error' in plistlibLoads([bare])[0]);
    assert.deepEqual(decodeXmlPlist(bare), { a: 1 });
  });

  test('our writer keeps CR with &#13;, which plistlib reads back (its own writer turns CR into LF)', () => {
    const [loaded] = plistlibLoads([encodeXmlPlistBytes({ s: 'a\r\nb\rc' })]);
    assert.deepEqual(loaded, toTagged({ s: 'a\r\nb\rc' }));
  });

  test('sub-second parts of dates are dropped by both writers', () => {
    const date = new Date(Date.UTC(2020, 5, 1, 12, 30, 45, 999));
    const [loaded] = plistlibLoads([encodeXmlPlistBytes(date)]);
    assert.deepEqual(loaded, { t: 'date', v: Date.UTC(2020, 5, 1, 12, 30, 45) });
  });
});
