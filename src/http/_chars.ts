// Byte classes of HTTP and RTSP heads (RFC 9110 5.6.2 tokens, 5.5 field values) as lookup tables.

export const HTAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SP = 0x20;
export const COLON = 0x3a;
export const SEMICOLON = 0x3b;
export const DEL = 0x7f;

// RFC 9110 5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA. Methods and field names are tokens.
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~") TOKEN[c.charCodeAt(0)] = 1;
for (let c = 0x30; c <= 0x39; c++) TOKEN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) TOKEN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) TOKEN[c] = 1;

export function isTokenByte(byte: number): boolean {
  return TOKEN[byte] === 1;
}

/** True when `text` is a non-empty token (a method, a header name, a protocol name). */
export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff || TOKEN[code] !== 1) return false;
  }
  return true;
}

/** Value of a hexadecimal digit byte, or -1. */
export function hexDigitValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return -1;
}

/**
 * A short printable rendering of input bytes for error reasons: ASCII as is, anything else as
 * \xNN, at most `max` bytes, in double quotes. Reasons end up in logs; raw bytes must not.
 */
export function quoteBytes(bytes: Uint8Array, from: number, to: number, max = 40): string {
  let out = '"';
  const stop = Math.min(to, from + max);
  for (let i = from; i < stop; i++) {
    const byte = bytes[i];
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c) out += String.fromCharCode(byte);
    else out += '\\x' + (byte < 16 ? '0' : '') + byte.toString(16);
  }
  return out + (to > stop ? '..."' : '"');
}

/** Same as quoteBytes, for a string already decoded as Latin-1. */
export function quoteText(text: string, max = 40): string {
  let out = '"';
  const stop = Math.min(text.length, max);
  for (let i = 0; i < stop; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c) out += text[i];
    else if (code <= 0xff) out += '\\x' + (code < 16 ? '0' : '') + code.toString(16);
    else out += '\\u' + code.toString(16).padStart(4, '0');
  }
  return out + (text.length > stop ? '..."' : '"');
}
