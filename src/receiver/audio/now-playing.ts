// What the playing stream's sender says is playing: the track's text (DMAP), its cover art and
// its progress, from SET_PARAMETER, shown on the screen where there is one (the TXT record's md
// says which of these the receiver takes). Only the playing stream's sender is heard; a new
// stream starts with nothing shown until its sender says.

import { DMAP_CONTENT_TYPE, DmapError, readDmapMetadata } from '../../audio/dmap';
import { artworkType, withArtwork, withMetadata } from '../../audio/now-playing';
import { RequestError } from '../../errors';
import { STATUS } from '../../http';
import type { Display, Logger, NowPlaying } from '../../platform';
import type { SenderSession } from '../session/session';

export class NowPlayingBoard {
  private shown: NowPlaying | undefined;
  private owner: SenderSession | undefined;

  constructor(
    private readonly log: Logger,
    private readonly display: Display | undefined,
    /** The session whose stream plays now, if any. */
    private readonly playing: () => SenderSession | undefined,
    /** The playing stream's sample rate (progress is in its RTP times). */
    private readonly sampleRate: () => number,
  ) {}

  /** A SET_PARAMETER body of `contentType`: the track's text or its cover. */
  describe(session: SenderSession, contentType: string, body: Uint8Array): void {
    if (!this.heard(session, contentType)) return;
    const artwork = artworkType(contentType);
    if (contentType === DMAP_CONTENT_TYPE) {
      let metadata;
      try {
        metadata = readDmapMetadata(body);
      } catch (error) {
        if (error instanceof DmapError) throw new RequestError(STATUS.badRequest, `SET_PARAMETER: ${error.message}`);
        throw error;
      }
      this.show(withMetadata(this.current(), metadata));
      const { title, artist, album } = metadata;
      this.log('info', `${session.peer} ${session.label} playing: ${[title, artist, album].filter((part) => part).join(' / ') || 'a track without a title'}`);
    } else if (artwork) {
      this.show(withArtwork(this.current(), artwork, body.slice()));
    } else {
      this.log('debug', `${session.peer} ${session.label} SET_PARAMETER ${contentType || 'without a Content-Type'} (${body.length} bytes) dropped: not metadata this receiver reads`);
    }
  }

  progress(session: SenderSession, [startRtp, currentRtp, endRtp]: readonly [number, number, number]): void {
    if (!this.heard(session, 'progress')) return;
    this.show({ ...this.current(), progress: { startRtp, currentRtp, endRtp, sampleRate: this.sampleRate() } });
  }

  /** Nothing plays any more (the stream ended). */
  clear(): void {
    this.owner = undefined;
    if (this.shown === undefined) return;
    this.shown = undefined;
    this.display?.showNowPlaying?.(undefined);
  }

  /** Whether `session`'s word is taken: it is the playing stream's sender. */
  private heard(session: SenderSession, what: string): boolean {
    if (this.playing() === session) return true;
    this.log('debug', `${session.peer} ${session.label} ${what} dropped: its session plays no stream`);
    return false;
  }

  /** What is shown for the playing stream (nothing yet when it is another stream's). */
  private current(): NowPlaying | undefined {
    if (this.owner !== this.playing()) {
      this.owner = this.playing();
      this.shown = undefined;
    }
    return this.shown;
  }

  private show(playing: NowPlaying): void {
    this.shown = playing;
    this.display?.showNowPlaying?.(playing);
  }
}
