// The virtual screen page's now-playing card: what realtime audio plays (ScreenNowPlaying,
// page-protocol.ts), its title, artist, album, cover art and a progress bar, drawn from each state
// the event stream brings. The bar runs on by itself between states, one second a second from
// the elapsed time the state says, up to the track's length.
//
// For tests and people alike, <body> says what is drawn:
//   data-now-playing-version  the version of the now-playing state drawn, 0 for none
//   data-artwork-shown        the URL of the cover art drawn (decoded), empty for none
//   class has-now-playing     the card is on the screen

import type { ScreenNowPlaying } from '../page-protocol';
import { clockText } from './clock';
import { byId, bySelector } from './dom';

/** How often the bar moves on between states. */
const TICK_MS = 250;

const body = document.body;
const card = byId('now-playing', HTMLElement);
const artwork = bySelector('#now-playing .artwork', HTMLImageElement);
const title = bySelector('#now-playing .title', HTMLElement);
const artist = bySelector('#now-playing .artist', HTMLElement);
const album = bySelector('#now-playing .album', HTMLElement);
const progressBox = bySelector('#now-playing .progress', HTMLElement);
const played = bySelector('#now-playing .played', HTMLElement);
const elapsedText = bySelector('#now-playing .elapsed', HTMLElement);
const durationText = bySelector('#now-playing .duration', HTMLElement);

let drawn = 0;
let ticker: ReturnType<typeof setInterval> | undefined;
/** The cover art asked for last: one still loading is dropped if another comes. */
let wantedArtwork: string | null = null;

body.dataset.nowPlayingVersion = '0';
body.dataset.artworkShown = '';

/** Draws `playing` (null: nothing plays) when it is not the state drawn already. */
export function showNowPlaying(playing: ScreenNowPlaying | null): void {
  if (!playing) {
    if (drawn === 0) return;
    drawn = 0;
    stopTicker();
    card.hidden = true;
    body.classList.remove('has-now-playing');
    showArtwork(null);
    body.dataset.nowPlayingVersion = '0';
    return;
  }
  if (playing.version === drawn) return;
  drawn = playing.version;
  title.textContent = playing.title ?? '';
  artist.textContent = playing.artist ?? '';
  album.textContent = playing.album ?? '';
  showArtwork(playing.artworkUrl);
  showProgress(playing.progress);
  card.hidden = false;
  body.classList.add('has-now-playing');
  body.dataset.nowPlayingVersion = String(playing.version);
}

function showArtwork(url: string | null): void {
  if (url === wantedArtwork) return;
  wantedArtwork = url;
  if (url === null) {
    artwork.hidden = true;
    artwork.removeAttribute('src');
    body.dataset.artworkShown = '';
    return;
  }
  const image = new Image();
  image.src = url;
  image
    .decode()
    .then(() => {
      if (wantedArtwork !== url) return;
      artwork.src = url;
      artwork.hidden = false;
      body.dataset.artworkShown = url;
    })
    .catch(() => {
      // Not drawable here: the card goes on without a cover.
      if (wantedArtwork !== url) return;
      artwork.hidden = true;
      body.dataset.artworkShown = '';
    });
}

function showProgress(progress: ScreenNowPlaying['progress']): void {
  stopTicker();
  if (!progress || !(progress.duration > 0)) {
    progressBox.hidden = true;
    return;
  }
  progressBox.hidden = false;
  const from = performance.now();
  const draw = () => {
    const elapsed = Math.min(progress.duration, progress.elapsed + (performance.now() - from) / 1000);
    played.style.width = `${((elapsed / progress.duration) * 100).toFixed(2)}%`;
    elapsedText.textContent = clockText(elapsed);
    durationText.textContent = clockText(progress.duration);
    if (elapsed >= progress.duration) stopTicker();
  };
  draw();
  ticker = setInterval(draw, TICK_MS);
}

function stopTicker(): void {
  if (ticker !== undefined) clearInterval(ticker);
  ticker = undefined;
}
