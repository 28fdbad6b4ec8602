// Accept-Language (RFC 9110 12.5.4): language ranges with weights, and the lookup of one
// available language (RFC 4647 3.4).

/** One element of an Accept-Language field: a range (lower-cased) and its weight. */
export interface LanguageRange {
  /** `de-ch`, `en`, `*`; whatever token a sender wrote (some write a name such as `English`). */
  readonly range: string;
  /** RFC 9110 12.4.2: 0 to 1, at most three decimals; 1 when absent. */
  readonly q: number;
}

// RFC 9110 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The ranges of an Accept-Language value, most preferred first (equal weights keep their
 * order). Ranges with q=0 ("not acceptable") and elements whose weight is malformed are left
 * out; so are empty elements (RFC 9110 5.6.1).
 */
export function parseAcceptLanguage(value: string | undefined): LanguageRange[] {
  if (!value) return [];
  const ranges: LanguageRange[] = [];
  for (const element of value.split(',')) {
    const parts = element.split(';');
    const range = parts[0].trim().toLowerCase();
    if (!range) continue;
    let q = 1;
    let valid = true;
    for (let i = 1; i < parts.length; i++) {
      const parameter = parts[i].trim();
      const equals = parameter.indexOf('=');
      if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'q') continue;
      const weight = parameter.slice(equals + 1).trim();
      if (!QVALUE.test(weight)) valid = false;
      else q = Number(weight);
    }
    if (valid && q > 0) ranges.push({ range, q });
  }
  // Array.prototype.sort is stable (ES2019), so equal weights stay in the order written.
  return ranges.sort((a, b) => b.q - a.q);
}

/**
 * RFC 4647 3.4 lookup: the first range, by preference, that names one of `available` (lower-case
 * tags such as `en`, `de`) exactly or after dropping subtags from the end (`de-ch-1996` ->
 * `de-ch` -> `de`). `*` stands for any language: it yields undefined, so the caller's default
 * applies. Undefined when nothing matches.
 */
export function lookupLanguage(ranges: readonly LanguageRange[], available: readonly string[]): string | undefined {
  for (const { range } of ranges) {
    if (range === '*') return undefined;
    let tag = range;
    while (tag) {
      if (available.includes(tag)) return tag;
      let cut = tag.lastIndexOf('-');
      // A single-letter subtag (an extension or private-use singleton) goes with what follows it.
      if (cut >= 2 && tag[cut - 2] === '-') cut -= 2;
      tag = cut < 0 ? '' : tag.slice(0, cut);
    }
  }
  return undefined;
}
