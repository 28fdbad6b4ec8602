// The slideshow themes (spec 2.6, 4.1 GET /slideshow-features): one table of theme keys and
// their names in each language, and the choice of language from Accept-Language.

import { lookupLanguage, parseAcceptLanguage } from '../../http';
import type { PlistDict } from '../../plist/value';

/** The languages theme names are given in; English is the fallback. */
type ThemeLanguage = 'en' | 'de' | 'fr' | 'es';

interface SlideshowTheme {
  /**
   * What senders send back as `settings.theme` (spec 2.7), and the transition name handed to
   * transition of every slide of the show (the same names real receivers use; transitions.ts
   * resolves them to what the screen draws).
   */
  readonly key: string;
  readonly names: Readonly<Record<ThemeLanguage, string>>;
}

/**
 * The themes, in the order offered. Each is a transition a screen can draw with plain 2D/3D
 * transforms (the virtual screen's CSS, a board's commodetto blits); a display that cannot draw
 * one cross-fades (Dissolve):
 * - Classic: the next picture slides in over the current one.
 * - Dissolve: cross-fade. The default.
 * - Cube: the pictures are faces of a cube turning.
 * - Flip: the picture turns over like a card around its vertical axis.
 * - Ripple: the next picture spreads from the centre in a widening circle.
 * - WipeAcross: the next picture is revealed from left to right.
 * - WipeDown: the next picture is revealed from top to bottom.
 * - Origami: the current picture folds away to show the next.
 * - KenBurns: cross-fade, then a slow zoom into the picture while it is shown.
 */
export const SLIDESHOW_THEMES: readonly SlideshowTheme[] = [
  { key: 'Classic', names: { en: 'Classic', de: 'Klassisch', fr: 'Classique', es: 'Clásico' } },
  { key: 'Dissolve', names: { en: 'Dissolve', de: 'Überblenden', fr: 'Fondu', es: 'Fundido' } },
  { key: 'Cube', names: { en: 'Cube', de: 'Würfel', fr: 'Cube', es: 'Cubo' } },
  { key: 'Flip', names: { en: 'Flip', de: 'Umdrehen', fr: 'Retournement', es: 'Giro' } },
  { key: 'Ripple', names: { en: 'Ripple', de: 'Wellen', fr: 'Ondulation', es: 'Ondas' } },
  { key: 'WipeAcross', names: { en: 'Wipe Across', de: 'Wischen horizontal', fr: 'Balayage horizontal', es: 'Barrido horizontal' } },
  { key: 'WipeDown', names: { en: 'Wipe Down', de: 'Wischen nach unten', fr: 'Balayage vers le bas', es: 'Barrido hacia abajo' } },
  { key: 'Origami', names: { en: 'Origami', de: 'Origami', fr: 'Origami', es: 'Origami' } },
  { key: 'KenBurns', names: { en: 'Ken Burns', de: 'Ken Burns', fr: 'Ken Burns', es: 'Ken Burns' } },
];

/** The theme used when a sender names none, or one not in the table. */
export const DEFAULT_THEME = 'Dissolve';

/** The language used when Accept-Language names none of ours. */
const DEFAULT_THEME_LANGUAGE: ThemeLanguage = 'en';

/**
 * Each language's tag and the names senders write instead of a tag: older senders send
 * `Accept-Language: English` rather than `en`. Names in lower case, English and native.
 */
const LANGUAGES: readonly { readonly tag: ThemeLanguage; readonly names: readonly string[] }[] = [
  { tag: 'en', names: ['english'] },
  { tag: 'de', names: ['german', 'deutsch'] },
  { tag: 'fr', names: ['french', 'français', 'francais'] },
  { tag: 'es', names: ['spanish', 'español', 'espanol'] },
];

const TAGS: readonly string[] = LANGUAGES.map((language) => language.tag);

/** The language of an Accept-Language value (tags with weights, or a language name), else English. */
export function themeLanguage(acceptLanguage: string | undefined): ThemeLanguage {
  // A name stands for its tag in its own place, so the order of preference holds across both.
  const ranges = parseAcceptLanguage(acceptLanguage).map((entry) => {
    const named = LANGUAGES.find((language) => language.names.includes(entry.range));
    return named ? { ...entry, range: named.tag } : entry;
  });
  return (lookupLanguage(ranges, TAGS) as ThemeLanguage | undefined) ?? DEFAULT_THEME_LANGUAGE;
}

/** spec 4.1: the GET /slideshow-features body, `themes` as {key, name} in `language`. */
export function slideshowFeatures(language: ThemeLanguage): PlistDict {
  return { themes: SLIDESHOW_THEMES.map((theme) => ({ key: theme.key, name: theme.names[language] })) };
}

/** The table's key for a theme a sender named (any letter case), or undefined when unknown. */
export function themeKey(name: string): string | undefined {
  const wanted = name.toLowerCase();
  return SLIDESHOW_THEMES.find((theme) => theme.key.toLowerCase() === wanted)?.key;
}
