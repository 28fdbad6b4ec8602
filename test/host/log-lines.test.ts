// The Node host's one shape of a log line (hosts/node/io/log-lines.ts, io/ports.ts): time to the
// millisecond, level, message; or one JSON object a line; long words and long lines cut below
// debug with what was left out counted, whole at debug; a message's line breaks never start a line.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clipMessage, formatLogLine, LONGEST_MESSAGE, LONGEST_WORD } from '../../hosts/node/io/log-lines';
import { consoleLogger, startupPrinter } from '../../hosts/node/io/ports';

const AT = new Date(Date.UTC(2026, 10, 21, 23, 50, 0, 7));

test('a text line is the ISO time to the millisecond, the level padded to five, the message', () => {
  assert.equal(formatLogLine('text', AT, 'info', 'listening on 127.0.0.1:7000 (HTTP and RTSP)'), '2026-11-21T23:50:00.007Z info  listening on 127.0.0.1:7000 (HTTP and RTSP)');
  assert.equal(formatLogLine('text', AT, 'error', 'x'), '2026-11-21T23:50:00.007Z error x');
  assert.equal(formatLogLine('text', AT, 'warn', 'two\nlines\r\nhere'), '2026-11-21T23:50:00.007Z warn  two\\nlines\\nhere');
});

test('a JSON line is one object of time, level and message, the message as it was', () => {
  const line = formatLogLine('json', AT, 'debug', 'said "hi"\nthen left');
  assert.ok(!line.includes('\n'));
  assert.deepEqual(JSON.parse(line), { time: '2026-11-21T23:50:00.007Z', level: 'debug', message: 'said "hi"\nthen left' });
});

test('below debug a long word and a long line are cut, saying how much is left out; debug keeps them whole', () => {
  const url = `http://192.0.2.7/${'a'.repeat(300)}`;
  const clipped = clipMessage(`cannot fetch ${url} (refused)`, 'info');
  assert.equal(clipped, `cannot fetch ${url.slice(0, LONGEST_WORD)}… (${url.length - LONGEST_WORD} more) (refused)`);
  const txt = Array.from({ length: 40 }, (_, i) => `k${i}=value${i}`).join(' ');
  const cut = clipMessage(txt, 'warn');
  assert.equal(cut, `${txt.slice(0, LONGEST_MESSAGE)}… (${txt.length - LONGEST_MESSAGE} more)`);
  assert.equal(clipMessage(txt, 'debug'), txt);
  assert.equal(clipMessage(`cannot fetch ${url}`, 'debug'), `cannot fetch ${url}`);
  assert.equal(clipMessage('short', 'error'), 'short');
});

test('the log and the start-up lines share the shape; the start-up lines are info whatever the level, and cut by it', () => {
  const lines: string[] = [];
  const log = consoleLogger('warn', 'json', (line) => lines.push(line));
  log('info', 'not kept at warn');
  log('warn', 'kept');
  const say = startupPrinter('warn', 'json', (line) => lines.push(line));
  say(`advertising ${'x'.repeat(250)}`);
  const parsed = lines.map((line) => JSON.parse(line) as { level: string; message: string });
  assert.deepEqual(parsed.map((entry) => entry.level), ['warn', 'info']);
  assert.equal(parsed[0].message, 'kept');
  assert.match(parsed[1].message, /^advertising x+… \(\d+ more\)$/);
  const text: string[] = [];
  startupPrinter('debug', 'text', (line) => text.push(line))(`advertising ${'x'.repeat(250)}`);
  assert.match(text[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info  advertising x{250}$/);
});
