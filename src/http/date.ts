// IMF-fixdate for Date headers (RFC 9110 5.6.7). The time comes from the caller's clock port.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function two(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** The second last formatted (NaN: none yet, and never equal to a second) and its text. */
let lastSecond = NaN;
let lastText = '';

/**
 * `Sun, 06 Nov 1994 08:49:37 GMT` for a time in milliseconds since the Unix epoch (UTC;
 * milliseconds are dropped). Throws a RangeError outside years 0000 to 9999, which the format's
 * four-digit year cannot hold. Only Date's calendar arithmetic is used, never its clock.
 */
export function httpDate(epochMs: number): string {
  const second = Math.floor(epochMs / 1000);
  // Every response carries a Date: format it once per second, not once per response: it was a measurable share of a small request's cost.
  // Module state on XS: a preloaded module's closures are aliased in RAM when written.
  if (second === lastSecond) return lastText;
  const text = formatSecond(epochMs, second);
  lastSecond = second;
  lastText = text;
  return text;
}

function formatSecond(epochMs: number, second: number): string {
  const date = new Date(second * 1000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(epochMs) || !(year >= 0 && year <= 9999)) {
    throw new RangeError(`httpDate: ${epochMs} ms is not a time in years 0000 to 9999`);
  }
  return (
    `${DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${String(year).padStart(4, '0')} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} GMT`
  );
}
