// Where the desktop receiver's realtime audio goes, from --audio-out and --record-audio: the
// system's sound through aplay, a WAV file, both, or nowhere (then the receiver offers no audio).
//
// A person who runs the receiver on a desktop expects to hear what a sender plays to it, as any
// speaker would: so sound is on by default, on ALSA's `default` device, wherever aplay is
// installed; `--audio-out none` turns it off. A machine without aplay offers no audio unless
// --record-audio gives it somewhere to go (a receiver must not advertise audio nobody can hear
// or keep). A machine with aplay but no sound card still offers it: each stream says in one
// line that it cannot be heard, and the receiver goes on.

import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { AudioSink, Logger } from '../../../src/platform';
import { AplaySink } from './aplay-sink';
import { TeeAudioSink } from './tee-sink';
import { WavFileSink } from './wav-sink';

export interface AudioOut {
  /** The receiver's AudioSink, or undefined: no audio offered. */
  readonly sink: AudioSink | undefined;
  /** What the start-up lines say about it. */
  readonly line: string;
}

/** Whether `program` is an executable file in one of PATH's folders (looked for without running anything). */
export function onPath(program: string, searchPath = process.env.PATH ?? ''): boolean {
  return searchPath
    .split(path.delimiter)
    .filter((folder) => folder !== '')
    .some((folder) => {
      try {
        accessSync(path.join(folder, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/**
 * The sink for `device` (undefined: none asked) and `recordFile`. Opening the file may throw (a
 * path that cannot be written): the caller says so at start.
 */
export function openAudioOut(options: { device: string | undefined; recordFile: string | undefined; log: Logger; now: () => number }): AudioOut {
  const { device, recordFile, log, now } = options;
  const parts: AudioSink[] = [];
  const said: string[] = [];
  if (device !== undefined && onPath('aplay')) {
    parts.push(new AplaySink({ device, log, now }));
    said.push(`plays on ALSA device ${device} (aplay)`);
  } else if (device !== undefined) {
    said.push('cannot play: aplay (alsa-utils) is not installed');
  }
  if (recordFile !== undefined) {
    parts.push(new WavFileSink(recordFile, log));
    said.push(`is recorded to ${recordFile}`);
  }
  if (parts.length === 0) said.push(device === undefined ? 'is not offered (--audio-out none)' : 'is not offered (--record-audio FILE.wav would record it)');
  const sink = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : new TeeAudioSink(parts);
  return { sink, line: `realtime audio ${said.join(', ')}` };
}
