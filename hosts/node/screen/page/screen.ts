// The virtual screen page's pictures, idle screen, status line and PIN: draws the receiver's screen state
// (PageState, page-protocol.ts), which arrives over Server-Sent Events on every change. No
// polling, nothing from the network but this receiver.
//
// For tests and people alike, <body> says what is on the screen:
//   data-shown-version   the version of the picture fully shown (transition finished), 0 for none
//   data-failed-version  the version of a picture the browser could not draw
//   class has-photo      a picture is on the screen
//
// The first state after the page opens (or reconnects) is drawn as it is: a picture already on
// the receiver's screen appears at once, without replaying its transition over the idle name.

import { PAGE_PATHS, statusWords, type PageState, type ScreenConnection, type ScreenNowPlaying, type ScreenPhoto } from '../page-protocol';
import { byId, bySelector, setHidden, setText } from './dom';

/** Longest a transition may take before the picture counts as shown anyway. */
const TRANSITION_LIMIT_MS = 3000;

const body = document.body;
const stage = byId('stage', HTMLElement);
const idleName = bySelector('#idle .name', HTMLElement);
const idleHint = bySelector('#idle .hint', HTMLElement);
const idleAddress = bySelector('#idle .address', HTMLElement);
const idlePairing = bySelector('#idle .pairing', HTMLElement);
const pinBox = byId('pin', HTMLElement);
const pinDigits = bySelector('#pin .digits', HTMLElement);
const status = {
  name: bySelector('#status .name', HTMLElement),
  activity: bySelector('#status .activity', HTMLElement),
  link: bySelector('#status .link', HTMLElement),
};

/** The version of the newest picture asked for; one still loading is dropped if a newer comes. */
let wanted = 0;
/** True until the first state is drawn: what is already shown appears without a transition. */
let opening = true;

/**
 * Opens the event stream and draws every state it brings; `onState` gets each state first, with
 * this page's token on the stream (a new one after each reconnection), which the video command
 * names.
 */
export function startScreen(onState: (state: PageState, client: string) => void): void {
  const events = new EventSource(PAGE_PATHS.events);
  events.onopen = () => {
    // A reconnect sends the whole state again: draw it as it is, like a page just opened.
    opening = true;
    status.link.textContent = 'live';
    status.link.classList.remove('down');
  };
  events.onerror = () => {
    // EventSource reconnects by itself; the whole state comes again when it does.
    status.link.textContent = 'reconnecting';
    status.link.classList.add('down');
  };
  events.onmessage = (event: MessageEvent<string>) => {
    const state = JSON.parse(event.data) as PageState;
    // The layers that follow the state first: a video to play starts loading before the
    // screen's own drawing.
    onState(state, event.lastEventId);
    render(state);
  };
}

function render(state: PageState): void {
  // Only what changed is written (setText): most states change one thing.
  const title = `${state.name} — screen`;
  if (document.title !== title) document.title = title;
  setText(idleName, state.name);
  showConnection(state.name, state.connection);
  setText(status.name, state.name);
  // What is shown, a slideshow with its state, a paused video, the track, a PIN being typed: the
  // words the Moddable strip reads too (it knows no pause nor track).
  setText(status.activity, statusWords({ ...state, paused: state.video?.rate === 0, track: trackOf(state.nowPlaying), pairing: Boolean(state.pin) }));
  setText(pinDigits, state.pin ?? '');
  setHidden(pinBox, !state.pin);
  const instant = opening;
  opening = false;
  if (!state.photo) {
    if (wanted !== 0) clearPhoto();
  } else if (state.photo.version !== wanted) {
    void showPhoto(instant ? { ...state.photo, transition: 'none' } : state.photo, instant);
  }
}

/** The idle screen says how to connect: the name to choose, the address for a sender tool, and what pairing asks. */
function showConnection(name: string, connection: ScreenConnection | null): void {
  setText(idleHint, `Choose “${name}” on your device`);
  setHidden(idleAddress, !connection || connection.addresses.length === 0);
  setText(idleAddress, connection ? connection.addresses.map((address) => `${address}:${connection.port}`).join('  ·  ') : '');
  const pairing = connection ? PAIRING_WORDS[connection.pairing] : '';
  setHidden(idlePairing, pairing === '');
  setText(idlePairing, pairing);
}

/** What the idle screen says pairing asks of a sender. */
const PAIRING_WORDS: Readonly<Record<ScreenConnection['pairing'], string>> = {
  pin: 'A PIN is needed: it will be shown here when your device asks',
  password: "A password is needed: the receiver's owner knows it",
  none: '',
};

/** The track audio plays, `Title - Artist`, for the status line; null when the sender named none. */
function trackOf(playing: ScreenNowPlaying | null): string | null {
  if (!playing) return null;
  return [playing.title, playing.artist].filter((part) => part).join(' - ') || null;
}

function clearPhoto(): void {
  wanted = 0;
  body.classList.remove('has-photo');
  for (const layer of stage.querySelectorAll('.photo')) {
    layer.className = 'photo leave t-dissolve';
    layer.addEventListener('animationend', () => layer.remove(), { once: true });
    setTimeout(() => layer.remove(), TRANSITION_LIMIT_MS);
  }
  body.dataset.shownVersion = '0';
}

async function showPhoto(photo: ScreenPhoto, instant: boolean): Promise<void> {
  wanted = photo.version;
  const image = new Image();
  image.alt = '';
  image.decoding = 'async';
  image.src = photo.url;
  try {
    await image.decode();
  } catch {
    // Not drawable here (or already replaced on the receiver): keep what is on the screen.
    if (wanted === photo.version) body.dataset.failedVersion = String(photo.version);
    return;
  }
  if (wanted !== photo.version) return;
  const leaving = [...stage.querySelectorAll('.photo')];
  const name = `t-${photo.transition}`;
  for (const layer of leaving) layer.className = `photo leave ${name}`;
  image.className = `photo enter ${name}`;
  stage.append(image);
  if (instant) {
    // The idle name goes at once (no fade across the picture), then fades as usual again.
    body.classList.add('instant');
    requestAnimationFrame(() => requestAnimationFrame(() => body.classList.remove('instant')));
  }
  body.classList.add('has-photo');
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    for (const layer of leaving) layer.remove();
    image.className = `photo current ${name}`;
    if (wanted === photo.version) body.dataset.shownVersion = String(photo.version);
  };
  if (photo.transition === 'none' || getComputedStyle(image).animationName === 'none') {
    finish();
  } else {
    image.addEventListener('animationend', finish, { once: true });
    setTimeout(finish, TRANSITION_LIMIT_MS);
  }
}
