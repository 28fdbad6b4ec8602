// The virtual screen page: draws the receiver's screen state (hosts/node/screen/display.ts
// ScreenSnapshot), which arrives over Server-Sent Events on every change. No polling, nothing
// from the network but this receiver.
//
// For tests and people alike, <body> says what is on the screen:
//   data-shown-version   the version of the picture fully shown (transition finished), 0 for none
//   class has-photo      a picture is on the screen
//
// The first state after the page opens (or reconnects) is drawn as it is: a picture already on
// the receiver's screen appears at once, without replaying its transition over the idle name.

'use strict';

(() => {
  const body = document.body;
  const stage = document.getElementById('stage');
  const idleName = document.querySelector('#idle .name');
  const pinBox = document.getElementById('pin');
  const pinDigits = document.querySelector('#pin .digits');
  const status = {
    name: document.querySelector('#status .name'),
    activity: document.querySelector('#status .activity'),
    slideshow: document.querySelector('#status .slideshow'),
    link: document.querySelector('#status .link'),
  };

  /** spec 2.1 activities, as a person reads them. */
  const ACTIVITIES = {
    idle: 'Idle',
    playingLocalMedia: 'Playing local media',
    receivingAudio: 'Receiving audio',
    receivingVideo: 'Receiving',
    receivingScreenMirroring: 'Mirroring a screen',
  };

  /** The version of the newest picture asked for; one still loading is dropped if a newer comes. */
  let wanted = 0;
  /** Longest a transition may take before the picture counts as shown anyway. */
  const TRANSITION_LIMIT_MS = 3000;
  /** True until the first state is drawn: what is already shown appears without a transition. */
  let opening = true;

  function render(state) {
    document.title = `${state.name} — screen`;
    idleName.textContent = state.name;
    status.name.textContent = state.name;
    status.activity.textContent = ACTIVITIES[state.activity] || state.activity;
    status.slideshow.textContent = state.slideshow ? `Slideshow ${state.slideshow}` : '';
    if (state.pin) {
      pinDigits.textContent = state.pin;
      pinBox.hidden = false;
    } else {
      pinBox.hidden = true;
      pinDigits.textContent = '';
    }
    const instant = opening;
    opening = false;
    if (!state.photo) {
      if (wanted !== 0) clearPhoto();
    } else if (state.photo.version !== wanted) {
      showPhoto(instant ? { ...state.photo, transition: 'none' } : state.photo, instant);
    }
  }

  function clearPhoto() {
    wanted = 0;
    body.classList.remove('has-photo');
    for (const layer of stage.querySelectorAll('.photo')) {
      layer.className = 'photo leave t-dissolve';
      layer.addEventListener('animationend', () => layer.remove(), { once: true });
      setTimeout(() => layer.remove(), TRANSITION_LIMIT_MS);
    }
    body.dataset.shownVersion = '0';
  }

  async function showPhoto(photo, instant = false) {
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

  const events = new EventSource('/events');
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
  events.onmessage = (event) => {
    const state = JSON.parse(event.data);
    render(state);
    // The video layer (video.js) follows the same state; the event id is this page's token on
    // the stream (a new one after each reconnection), which the video command names.
    document.dispatchEvent(new CustomEvent('screenstate', { detail: { state, client: event.lastEventId } }));
  };
})();
