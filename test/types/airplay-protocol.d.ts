// Types for the parts of npm `airplay-protocol` (a sender library for the real-world dialect,
// JavaScript without types) that the end-to-end tests use. Read from its index.js.

declare module 'airplay-protocol' {
  import { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';

  type Callback = (error: Error | undefined, response: IncomingMessage, body: unknown) => void;

  class AirPlay extends EventEmitter {
    constructor(host: string, port?: number);
    host: string;
    port: number;
    /** The state of the last event that had one (`stopped` destroys the client). */
    state?: string;
    /** Opens the reverse connection (POST /reverse, PTTH/1.0) on which events arrive; play() calls it. */
    _startReverse(): void;
    serverInfo(callback: Callback): void;
    /** POST /play (text/parameters: Content-Location, Start-Position); opens the reverse connection first. */
    play(url: string, position: number, callback?: Callback): void;
    /** POST /scrub?position= (GET /scrub with null). */
    scrub(position: number | null, callback?: Callback): void;
    /** POST /rate?value=; pause() is rate(0), resume() rate(1). */
    rate(speed: number, callback?: Callback): void;
    pause(callback?: Callback): void;
    resume(callback?: Callback): void;
    /** GET /playback-info; the body is the parsed XML plist. */
    playbackInfo(callback: Callback): void;
    /** POST /getProperty?NAME (no value) or PUT /setProperty?NAME; binary plist bodies decoded. */
    property(name: string, callback: Callback): void;
    stop(callback?: Callback): void;
    close(callback?: () => void): void;
    destroy(): void;
  }
  export = AirPlay;
}
