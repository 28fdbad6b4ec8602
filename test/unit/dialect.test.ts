// The maker-named identifiers (src/dialect.ts): one table per dialect, and requests read in every dialect.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DIALECT, DIALECTS, isDialectName, readMakerHeader } from '../../src/dialect';
import { Headers } from '../../src/http/headers';

test('each dialect spells the maker headers and MIME types with its maker', () => {
  assert.equal(DIALECTS.vendor.headers['Session-ID'], 'X-Vendor-Session-ID');
  assert.equal(DIALECTS.apple.headers.AssetKey, 'X-Apple-AssetKey');
  assert.deepEqual(DIALECTS.vendor.mime, {
    plistXml: 'text/x-vendor-plist+xml',
    plistBinary: 'application/x-vendor-binary-plist',
    plistEvent: 'application/x-vendor-plist',
  });
  assert.equal(DIALECTS.apple.mime.plistBinary, 'application/x-apple-binary-plist');
  assert.equal(DIALECTS.apple.serviceType, '_airplay._tcp');
  assert.equal(DIALECTS.vendor.serverProduct, 'VendorTunes');
  assert.equal(DEFAULT_DIALECT, 'vendor');
});

test('isDialectName knows the table\'s names and not inherited properties', () => {
  assert.equal(isDialectName('vendor'), true);
  assert.equal(isDialectName('apple'), true);
  assert.equal(isDialectName('Apple'), false);
  assert.equal(isDialectName('toString'), false);
  assert.equal(isDialectName(''), false);
});

test('readMakerHeader reads either dialect\'s spelling, case-insensitively, trimmed', () => {
  assert.equal(readMakerHeader(new Headers({ 'x-vendor-session-id': '  abc ' }), 'Session-ID'), 'abc');
  assert.equal(readMakerHeader(new Headers({ 'X-Apple-Session-ID': 'def' }), 'Session-ID'), 'def');
});

test('readMakerHeader prefers the first dialect of the table, and skips a blank value for the next', () => {
  assert.equal(readMakerHeader(new Headers({ 'X-Vendor-AssetKey': 'v', 'X-Apple-AssetKey': 'a' }), 'AssetKey'), 'v');
  assert.equal(readMakerHeader(new Headers({ 'X-Vendor-AssetKey': '   ', 'X-Apple-AssetKey': 'a' }), 'AssetKey'), 'a');
});

test('readMakerHeader is undefined when no dialect names the header, or only with blanks', () => {
  assert.equal(readMakerHeader(new Headers({ 'Session-ID': 'x' }), 'Session-ID'), undefined);
  assert.equal(readMakerHeader(new Headers({ 'X-Vendor-Purpose': '', 'X-Apple-Purpose': ' ' }), 'Purpose'), undefined);
});
