// The virtual screen page's entry (bundled by scripts/build.mjs into dist/screen/page.js): starts
// its layers. The video layer and the now-playing card follow each state the screen's event
// stream brings, so they start first and miss none.

import { startMirror } from './mirror';
import { showNowPlaying } from './now-playing';
import { startResetTries } from './reset-tries';
import { startScreen } from './screen';
import { followVideoCommand, startVideo } from './video';

startVideo();
startScreen((state, client) => {
  followVideoCommand(state.video, client, state.videoPage);
  showNowPlaying(state.nowPlaying);
});
startMirror();
startResetTries();
