// The virtual screen page's video layer: plays what the receiver's `video` command names
// (hosts/node/screen/player.ts VideoCommand), in a <video> element above the pictures, and
// reports what the element does to POST /player/report: on every change, and four times a second
// while playing. The media comes from /media/ITEM/N on this server (the receiver fetches it and
// counts it); HLS plays natively where the browser can, else with hls.js on Media Source
// Extensions (loaded from /hls.js only then). `?hls=library` in the page's URL uses hls.js even
// where the browser plays HLS itself.
//
// Only the page the command names plays (the one opened last); the others say where it plays.
// For tests and people alike, <body> says what the layer does:
//   class has-video          a video is loaded
//   data-video-item          the item loaded (absent when none)
//   data-video-frame-at      wall-clock ms (performance.timeOrigin based) of the item's first frame
//   data-video-hls           `native` or `library` while an HLS item plays

'use strict';

(() => {
  const body = document.body;
  const video = document.getElementById('video');
  const note = document.getElementById('video-note');
  const forceLibrary = new URLSearchParams(location.search).get('hls') === 'library';
  /** Rates the element takes (Chromium refuses others: negative ones among them). */
  const MIN_RATE = 0.0625;
  const MAX_RATE = 16;
  /** While playing, a report at least this often (the receiver extrapolates between them). */
  const PLAYING_REPORT_MS = 250;
  /** A step in currentTime bigger than this is a jump, not time watched. */
  const MAX_WATCH_STEP = 1.5;

  /** This page's token on the event stream now (a new one after each reconnection). */
  let client = null;
  /** The latest command from the receiver (null: nothing to play). */
  let command = null;
  /** The item loaded in the element and what is known of it. */
  let loaded = null;
  let hlsLibrary = null;

  document.addEventListener('screenstate', (event) => {
    client = event.detail.client;
    command = event.detail.state.video;
    apply();
  });

  function nativeHls() {
    return !forceLibrary && video.canPlayType('application/vnd.apple.mpegurl') !== '';
  }

  function apply() {
    if (!command || command.player !== client) {
      if (loaded) unload();
      showNote(command ? 'Video plays in another open screen page' : '');
      return;
    }
    const library = command.kind === 'hls' && !nativeHls();
    if (!loaded || loaded.item !== command.item || loaded.library !== library) load(command, library);
    else if (command.seek && command.seek.version > loaded.seekVersion) {
      loaded.seekVersion = command.seek.version;
      // Before the metadata the element keeps it as where to start; the start asked at load
      // (a fraction, say) must not undo it then.
      loaded.start = { seconds: command.seek.seconds };
      video.currentTime = command.seek.seconds;
    }
    applyRate(command.rate);
  }

  function load(command, library) {
    unload();
    loaded = {
      item: command.item,
      library,
      // A seek made before this load is in the start already.
      seekVersion: command.seek ? command.seek.version : 0,
      start: command.start,
      rate: command.rate,
      hls: null,
      frameShown: false,
      playedOnce: false,
      waiting: false,
      stalls: 0,
      watched: 0,
      lastTime: null,
      error: null,
      timer: null,
      sending: false,
      again: false,
    };
    body.classList.add('has-video');
    body.dataset.videoItem = String(command.item);
    delete body.dataset.videoFrameAt;
    showNote('');
    watchFirstFrame(loaded);
    if (command.kind === 'hls') body.dataset.videoHls = library ? 'library' : 'native';
    else delete body.dataset.videoHls;
    if (library) loadWithLibrary(loaded, command.src);
    else video.src = command.src;
    report();
  }

  function unload() {
    if (!loaded) return;
    clearInterval(loaded.timer);
    if (loaded.hls) loaded.hls.destroy();
    loaded = null;
    video.pause();
    video.removeAttribute('src');
    video.load();
    body.classList.remove('has-video');
    delete body.dataset.videoItem;
    delete body.dataset.videoFrameAt;
    delete body.dataset.videoHls;
  }

  function showNote(text) {
    note.textContent = text;
    note.hidden = text === '';
  }

  async function loadWithLibrary(item, src) {
    try {
      const Hls = await libraryLoaded();
      if (loaded !== item) return;
      if (!Hls.isSupported()) throw new Error('this browser has neither HLS nor Media Source Extensions');
      // No worker: the page's policy allows none (worker-src 'none').
      const hls = new Hls({ enableWorker: false, startPosition: item.start.seconds ?? -1 });
      item.hls = hls;
      hls.on(Hls.Events.ERROR, (_, data) => {
        if (!data.fatal || loaded !== item) return;
        const status = data.response && data.response.code;
        fail(item, status ? { code: status, domain: 'http', message: `${data.details}: HTTP ${status}` } : { code: -1, domain: 'hls', message: `${data.type}: ${data.details}` });
      });
      hls.attachMedia(video);
      hls.loadSource(src);
    } catch (error) {
      if (loaded === item) fail(item, { code: -1, domain: 'hls', message: String(error && error.message ? error.message : error) });
    }
  }

  function libraryLoaded() {
    hlsLibrary ??= new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = '/hls.js';
      script.onload = () => resolve(globalThis.Hls);
      script.onerror = () => reject(new Error('hls.js could not be loaded'));
      document.head.append(script);
    });
    return hlsLibrary;
  }

  function watchFirstFrame(item) {
    const drawn = () => {
      if (loaded !== item || item.frameShown) return;
      item.frameShown = true;
      body.dataset.videoFrameAt = String(performance.timeOrigin + performance.now());
      report();
    };
    if (typeof video.requestVideoFrameCallback === 'function') video.requestVideoFrameCallback(drawn);
    else video.addEventListener('loadeddata', drawn, { once: true });
  }

  function fail(item, error) {
    item.error = error;
    item.hls?.destroy();
    item.hls = null;
    body.classList.remove('has-video');
    report();
  }

  function applyRate(rate) {
    loaded.rate = rate;
    if (rate === 0) {
      video.pause();
      return;
    }
    if (rate >= MIN_RATE && rate <= MAX_RATE) {
      video.playbackRate = rate;
      video.defaultPlaybackRate = rate;
    }
    if (video.paused && !video.ended) play();
  }

  function play() {
    video.play().catch((error) => {
      // A page nobody has clicked may not play sound: play muted, and say how to hear it.
      if (error.name === 'NotAllowedError' && !video.muted && loaded) {
        video.muted = true;
        showNote('Muted: click the page for sound');
        video.play().catch(() => {});
      }
      // AbortError: the source changed meanwhile; the new one plays by itself.
    });
  }
  document.addEventListener('click', () => {
    if (!video.muted) return;
    video.muted = false;
    showNote('');
  });

  // Where the item starts: a fraction needs the duration, known from here.
  video.addEventListener('loadedmetadata', () => {
    if (!loaded) return;
    const { seconds, fraction } = loaded.start;
    if (fraction !== undefined && Number.isFinite(video.duration)) video.currentTime = fraction * video.duration;
    // hls.js starts at startPosition itself.
    else if (seconds && !loaded.library) video.currentTime = seconds;
    loaded.lastTime = video.currentTime;
    report();
  });
  video.addEventListener('playing', () => {
    if (!loaded) return;
    loaded.playedOnce = true;
    loaded.waiting = false;
    clearInterval(loaded.timer);
    loaded.timer = setInterval(report, PLAYING_REPORT_MS);
    report();
  });
  video.addEventListener('waiting', () => {
    if (!loaded) return;
    loaded.waiting = true;
    // A stall: playback had started and stopped for want of data (not a seek's wait).
    if (loaded.playedOnce && !video.seeking) loaded.stalls++;
    report();
  });
  video.addEventListener('timeupdate', () => {
    if (!loaded) return;
    const step = video.currentTime - (loaded.lastTime ?? video.currentTime);
    if (!video.seeking && step > 0 && step < MAX_WATCH_STEP) loaded.watched += step;
    loaded.lastTime = video.currentTime;
  });
  video.addEventListener('seeked', () => {
    if (!loaded) return;
    loaded.lastTime = video.currentTime;
    report();
  });
  video.addEventListener('error', () => {
    if (!loaded || loaded.library || !video.error) return;
    fail(loaded, { code: video.error.code, domain: 'media', message: video.error.message || mediaErrorName(video.error.code) });
  });
  for (const name of ['pause', 'ended', 'seeking', 'durationchange', 'ratechange', 'progress', 'canplay', 'canplaythrough']) {
    video.addEventListener(name, () => {
      if (!loaded) return;
      if (name === 'pause' || name === 'ended') clearInterval(loaded.timer);
      report();
    });
  }

  function mediaErrorName(code) {
    return ['', 'fetching aborted', 'network error', 'cannot decode', 'format not supported'][code] || `media error ${code}`;
  }

  function state(item) {
    if (item.error) return 'failed';
    if (video.ended) return 'ended';
    if (video.readyState < HTMLMediaElement.HAVE_METADATA) return 'loading';
    if (video.paused) return 'paused';
    if (item.waiting || video.seeking || video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA) return 'loading';
    return 'playing';
  }

  function ranges(list) {
    const out = [];
    for (let i = 0; i < list.length && i < 64; i++) out.push([list.start(i), Math.max(0, list.end(i) - list.start(i))]);
    return out;
  }

  function snapshot(item) {
    const duration = video.duration;
    const buffered = video.buffered;
    let bufferFull = false;
    for (let i = 0; i < buffered.length; i++) {
      if (buffered.start(i) <= video.currentTime && Number.isFinite(duration) && buffered.end(i) >= duration - 0.1) bufferFull = true;
    }
    const quality = typeof video.getVideoPlaybackQuality === 'function' ? video.getVideoPlaybackQuality() : null;
    const current = state(item);
    return {
      item: item.item,
      state: current,
      position: Number.isFinite(video.currentTime) ? video.currentTime : 0,
      duration: Number.isNaN(duration) ? 0 : Number.isFinite(duration) ? duration : null,
      rate: video.playbackRate,
      readyToPlay: video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA,
      bufferEmpty: video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA,
      bufferFull,
      likelyToKeepUp: video.readyState >= HTMLMediaElement.HAVE_ENOUGH_DATA,
      loaded: ranges(buffered),
      seekable: ranges(video.seekable),
      stalls: item.stalls,
      framesDropped: quality ? quality.droppedVideoFrames : 0,
      watched: item.watched,
      frameShown: item.frameShown,
      ...(item.error && { error: item.error }),
    };
  }

  /** Sends the element's state now; one report in flight at a time, the latest state wins. */
  function report() {
    const item = loaded;
    if (!item || client === null) return;
    if (item.sending) {
      item.again = true;
      return;
    }
    item.sending = true;
    item.again = false;
    fetch(`/player/report?client=${encodeURIComponent(client)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(snapshot(item)),
    })
      .catch(() => {
        // The receiver is away: the event stream reconnects, and the whole state comes again.
      })
      .finally(() => {
        item.sending = false;
        if (item.again && loaded === item) report();
      });
  }
})();
