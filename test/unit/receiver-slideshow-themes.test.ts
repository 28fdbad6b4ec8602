// The slideshow themes (src/receiver/slideshow/slideshow-themes.ts): one table of keys and names,
// the language from Accept-Language, and the key of a theme a sender names.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_THEME, SLIDESHOW_THEMES, slideshowFeatures, themeKey, themeLanguage } from '../../src/receiver/slideshow/slideshow-themes';

test('the language is the most preferred one we have, by tag and subtag', () => {
  assert.equal(themeLanguage('de-CH'), 'de');
  assert.equal(themeLanguage('ja, fr;q=0.5, es;q=0.8'), 'es');
  assert.equal(themeLanguage('fr-CA;q=0.9, en-GB;q=0.1'), 'fr');
});

test('older senders name the language instead of giving a tag, in English or natively', () => {
  assert.equal(themeLanguage('English'), 'en');
  assert.equal(themeLanguage('Deutsch'), 'de');
  assert.equal(themeLanguage('German'), 'de');
  assert.equal(themeLanguage('Fran\u00e7ais'), 'fr');
  assert.equal(themeLanguage('espanol'), 'es');
});

test('English when nothing is asked, nothing known is asked, or "*" comes first', () => {
  assert.equal(themeLanguage(undefined), 'en');
  assert.equal(themeLanguage(''), 'en');
  assert.equal(themeLanguage('ja, ko'), 'en');
  assert.equal(themeLanguage('*, de'), 'en');
  assert.equal(themeLanguage('de;q=0'), 'en');
});

test('a language named first wins over a tag asked for with less weight', () => {
  assert.equal(themeLanguage('English, de;q=0.5'), 'en');
  assert.equal(themeLanguage('de;q=0.4, Français'), 'fr');
});

test('the features body lists every theme in table order, named in the language', () => {
  const german = slideshowFeatures('de').themes as { key: string; name: string }[];
  assert.deepEqual(german.map((theme) => theme.key), SLIDESHOW_THEMES.map((theme) => theme.key));
  assert.deepEqual(german[1], { key: 'Dissolve', name: '\u00dcberblenden' });
  assert.deepEqual((slideshowFeatures('en').themes as { name: string }[])[5].name, 'Wipe Across');
});

test('a theme named in any letter case gives the table\'s key; names and unknown themes give none', () => {
  assert.equal(themeKey('kenburns'), 'KenBurns');
  assert.equal(themeKey('DISSOLVE'), 'Dissolve');
  assert.equal(themeKey('Ken Burns'), undefined);
  assert.equal(themeKey(''), undefined);
  assert.equal(themeKey('Sparkle'), undefined);
});

test('theme keys are unique, each has a name in every language, and the default is one of them', () => {
  const keys = SLIDESHOW_THEMES.map((theme) => theme.key.toLowerCase());
  assert.equal(new Set(keys).size, keys.length);
  for (const theme of SLIDESHOW_THEMES) for (const language of ['en', 'de', 'fr', 'es'] as const) assert.ok(theme.names[language], `${theme.key} ${language}`);
  assert.equal(themeKey(DEFAULT_THEME), DEFAULT_THEME);
});
