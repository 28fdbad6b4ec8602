// The virtual screen page's entry (bundled by scripts/build.mjs into dist/screen/page.js): starts
// its three layers. The video layer follows each state the screen's event stream brings, so it
// starts first and misses none.

import { startMirror } from './mirror';
import { startScreen } from './screen';
import { followVideoCommand, startVideo } from './video';

startVideo();
startScreen((state, client) => followVideoCommand(state.video, client));
startMirror();
