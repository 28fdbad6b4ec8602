// Reverse HTTP (spec 1.6): the upgrade token of POST /reverse and the purposes a sender names for
// the connection it turns around. The receiver checks and answers them; the sender tool sends them.

/** The protocol token of the reverse upgrade: `Upgrade: PTTH/1.0` on the request and the 101. */
export const PTTH = 'PTTH/1.0';

/** X-Vendor-Purpose of the reverse connection that carries events (spec 4.6, 6). */
export const EVENT_PURPOSE = 'event';

/** X-Vendor-Purpose of the reverse connections that carry picture fetches (spec 4.1). */
export const SLIDESHOW_PURPOSE = 'slideshow';
