// Accept-Language (src/http/accept-language.ts): ranges by weight (RFC 9110 12.5.4) and the
// RFC 4647 3.4 lookup of one available language.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookupLanguage, parseAcceptLanguage } from '../../src/http/accept-language';

test('ranges come most preferred first, lower-cased, with equal weights in the order written', () => {
  assert.deepEqual(parseAcceptLanguage('fr;q=0.5, DE-CH, en;q=0.9, es;q=0.5'), [
    { range: 'de-ch', q: 1 },
    { range: 'en', q: 0.9 },
    { range: 'fr', q: 0.5 },
    { range: 'es', q: 0.5 },
  ]);
});

test('no value, an empty value and empty elements give no ranges', () => {
  assert.deepEqual(parseAcceptLanguage(undefined), []);
  assert.deepEqual(parseAcceptLanguage(''), []);
  assert.deepEqual(parseAcceptLanguage(' , ,'), []);
  assert.deepEqual(parseAcceptLanguage(',en,'), [{ range: 'en', q: 1 }]);
});

test('q=0 (not acceptable) and malformed weights leave their range out', () => {
  assert.deepEqual(parseAcceptLanguage('de;q=0, fr;q=0.000, en'), [{ range: 'en', q: 1 }]);
  for (const weight of ['1.5', '0.1234', '2', '-1', 'abc', '', '.5', '1.001']) {
    assert.deepEqual(parseAcceptLanguage(`de;q=${weight}, en;q=0.1`), [{ range: 'en', q: 0.1 }], `q=${weight}`);
  }
});

test('the weight parameter is found by name, any case and spacing; other parameters are ignored', () => {
  assert.deepEqual(parseAcceptLanguage('de ; Q = 0.3 ; x=1, en;level=2'), [
    { range: 'en', q: 1 },
    { range: 'de', q: 0.3 },
  ]);
  assert.deepEqual(parseAcceptLanguage('de;q=1.000, en;q=1.'), [
    { range: 'de', q: 1 },
    { range: 'en', q: 1 },
  ]);
});

test('a name instead of a tag is kept as a range (older senders write English)', () => {
  assert.deepEqual(parseAcceptLanguage('English'), [{ range: 'english', q: 1 }]);
});

test('lookup drops subtags from the end until a tag is available', () => {
  const available = ['en', 'de', 'zh-hant'];
  assert.equal(lookupLanguage(parseAcceptLanguage('de-CH-1996'), available), 'de');
  assert.equal(lookupLanguage(parseAcceptLanguage('zh-Hant-TW'), available), 'zh-hant');
  assert.equal(lookupLanguage(parseAcceptLanguage('fr, en-GB'), available), 'en');
});

test('lookup drops a single-letter singleton together with what follows it', () => {
  // en-a-bbb: dropping "bbb" would leave "en-a", which is not a tag; RFC 4647 3.4 drops both.
  assert.equal(lookupLanguage(parseAcceptLanguage('en-a-bbb'), ['en-a', 'en']), 'en');
  assert.equal(lookupLanguage(parseAcceptLanguage('de-x-private'), ['de']), 'de');
});

test('lookup follows preference, not the order of what is available', () => {
  assert.equal(lookupLanguage(parseAcceptLanguage('en;q=0.5, de'), ['en', 'de']), 'de');
});

test('lookup gives undefined at "*" (the caller\'s default) and when nothing matches', () => {
  assert.equal(lookupLanguage(parseAcceptLanguage('*, de'), ['de']), undefined);
  assert.equal(lookupLanguage(parseAcceptLanguage('de, *'), ['de']), 'de');
  assert.equal(lookupLanguage(parseAcceptLanguage('ja, ko'), ['en']), undefined);
  assert.equal(lookupLanguage([], ['en']), undefined);
  // No partial match the other way: "en" does not pick "en-gb".
  assert.equal(lookupLanguage(parseAcceptLanguage('en'), ['en-gb']), undefined);
});
