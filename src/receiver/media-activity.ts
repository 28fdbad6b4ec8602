// The activity (spec 2.1) of a sender's photo or slideshow session, one decision for both.
//
// spec 2.1's table has no row for photos or slideshows. Real receivers run them in the same
// media session as video (one reverse event channel, one session, one POST /stop for all), and
// spec 2.4 sets ReceiverSessionIsActive "while the receiver receives anything": so the row is
// `receiving video` (flag 17 set), back to `idle` when nothing is shown any more.

import type { Activity } from '../discovery';

export const MEDIA_SESSION_ACTIVITY: Activity = 'receivingVideo';
