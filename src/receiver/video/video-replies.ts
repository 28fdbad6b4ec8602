// The bodies video requests are answered with (spec 2.9, 2.10, 4.2): the playback information
// plist, the GET /scrub parameters, and the /getProperty and /setProperty plists. One function
// per body, from the session's plain values; keys in the order real receivers write them
// (alphabetical, as NSDictionary serializes).

import type { TimeRange } from '../../platform';
import { encodeParametersBytes } from '../../plist/parameters';
import { real, type PlistDict, type PlistValue } from '../../plist/value';
import type { AccessLogEvent, ErrorLogEvent, PlaybackInfo } from './video-session';

/**
 * GET /playback-info with nothing loaded: what real receivers answer (Kodi writes exactly this,
 * Apple TVs leave out every key but readyToPlay): no `duration`, which is how senders such as
 * pyatv tell that nothing plays (they poll until the key goes away).
 */
export const NOTHING_LOADED: Readonly<PlistDict> = Object.freeze({ readyToPlay: false });

function ranges(list: readonly TimeRange[]): PlistDict[] {
  return list.map((range) => ({ duration: real(range.duration), start: real(range.start) }));
}

/** spec 2.9: every key; reals stay reals when integral (`rate` 1 is <real>1.0</real>). */
export function playbackInfoPlist(info: PlaybackInfo): PlistDict {
  return {
    duration: real(info.duration),
    loadedTimeRanges: ranges(info.loaded),
    playbackBufferEmpty: info.bufferEmpty,
    playbackBufferFull: info.bufferFull,
    playbackLikelyToKeepUp: info.likelyToKeepUp,
    position: real(info.position),
    rate: real(info.rate),
    readyToPlay: info.readyToPlay,
    seekableTimeRanges: ranges(info.seekable),
  };
}

/** spec 4.2 GET /scrub: `duration` and `position` lines, seconds with six decimals. */
export function scrubParameters(duration: number, position: number): Uint8Array {
  return encodeParametersBytes([
    ['duration', duration],
    ['position', position],
  ]);
}

/** spec 2.10: one access-log entry. s-ip is absent while the player has not said (AVFoundation's nil). */
export function accessLogEntry(event: AccessLogEvent): PlistDict {
  const entry: PlistDict = {
    bytes: event.bytes,
    'c-duration-downloaded': real(event.durationDownloaded),
    'c-duration-watched': real(event.durationWatched),
    'c-frames-dropped': event.framesDropped,
    'c-observed-bitrate': real(event.observedBitrate),
    'c-overdue': event.overdue,
    'c-stalls': event.stalls,
    'c-start-time': real(event.startTime),
    'c-startup-time': real(event.startupTime),
    'cs-guid': event.guid,
    date: new Date(event.date),
  };
  if (event.serverAddress !== undefined) entry['s-ip'] = event.serverAddress;
  entry['s-ip-changes'] = event.serverAddressChanges;
  entry['sc-count'] = event.requests;
  entry.uri = event.uri;
  return entry;
}

/**
 * One error-log entry. spec 4.2 does not show its shape: these are the fields of the extended
 * log AVFoundation's error log writes (AVPlayerItemErrorLogEvent: date, uri, s-ip, cs-guid,
 * status, domain, comment), which senders built on it read.
 */
export function errorLogEntry(event: ErrorLogEvent): PlistDict {
  const entry: PlistDict = {
    comment: event.comment,
    'cs-guid': event.guid,
    date: new Date(event.date),
    domain: event.domain,
  };
  if (event.serverAddress !== undefined) entry['s-ip'] = event.serverAddress;
  entry.status = event.status;
  entry.uri = event.uri;
  return entry;
}

/** spec 4.2, 7: a property request that succeeded: errorCode 0, and the value when there is one. */
export function propertyReply(value?: PlistValue): PlistDict {
  return value === undefined ? { errorCode: 0 } : { errorCode: 0, value };
}
