// Video for the Node host's tests, made at test time by ffmpeg (Debian's, installed by .ci/run)
// in a temporary folder: a 6 s MP4 at 320x240 that is one solid colour per 2 s (red, green,
// blue: the colours of color-blocks.ts), the same as HLS in 1 s segments, and a file that is not
// video; and a loopback HTTP server for them with Range support that counts the bytes and
// requests it served, so a test can compare them with what the receiver says it fetched.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BLUE, GREEN, RED, type Rgb } from './color-blocks';

const run = promisify(execFile);

/** The clip's colours, 2 s each, in order. */
export const CLIP_COLOURS: readonly Rgb[] = [RED, GREEN, BLUE];
export const CLIP_SECONDS_PER_COLOUR = 2;
export const CLIP_DURATION = CLIP_COLOURS.length * CLIP_SECONDS_PER_COLOUR;
export const CLIP_SIZE = { width: 320, height: 240 } as const;

/** The colour the clip shows at `seconds`. */
export function clipColourAt(seconds: number): Rgb {
  return CLIP_COLOURS[Math.min(CLIP_COLOURS.length - 1, Math.floor(seconds / CLIP_SECONDS_PER_COLOUR))];
}

export interface MediaFixtures {
  /** The folder served: clip.mp4, hls/index.m3u8 and hls/segN.ts, not-video.mp4. */
  readonly dir: string;
  /** Paths under the folder, as the media server serves them. */
  readonly mp4: string;
  readonly hls: string;
  readonly notVideo: string;
  remove(): void;
}

const hex = ([r, g, b]: Rgb): string => `0x${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** Runs ffmpeg to make the clip and its HLS version (about a second). */
export async function makeMediaFixtures(): Promise<MediaFixtures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vp-media-'));
  try {
    const { width, height } = CLIP_SIZE;
    const inputs = CLIP_COLOURS.flatMap((colour) => ['-f', 'lavfi', '-i', `color=c=${hex(colour)}:s=${width}x${height}:d=${CLIP_SECONDS_PER_COLOUR}:r=25`]);
    const joined = CLIP_COLOURS.map((_, i) => `[${i}]`).join('');
    // A key frame every second: HLS segments cut there, and seeks land exactly.
    await run('ffmpeg', [
      '-v', 'error', '-y', ...inputs,
      '-filter_complex', `${joined}concat=n=${CLIP_COLOURS.length}:v=1:a=0`,
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '25', '-keyint_min', '25', '-sc_threshold', '0',
      '-movflags', '+faststart', path.join(dir, 'clip.mp4'),
    ]);
    mkdirSync(path.join(dir, 'hls'));
    await run('ffmpeg', [
      '-v', 'error', '-y', '-i', path.join(dir, 'clip.mp4'), '-c', 'copy',
      '-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod',
      '-hls_segment_filename', path.join(dir, 'hls', 'seg%d.ts'), path.join(dir, 'hls', 'index.m3u8'),
    ]);
    // Bytes that no browser decodes, under a name that says MP4.
    writeFileSync(path.join(dir, 'not-video.mp4'), Buffer.from('This is a text file, not a video.\n'.repeat(200)));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    mp4: '/clip.mp4',
    hls: '/hls/index.m3u8',
    notVideo: '/not-video.mp4',
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
};

/** A loopback HTTP server for a folder: GET with Range (RFC 9110 14), counting what it sent. */
export class MediaServer {
  /** Body bytes sent (whole answers that finished), by path. */
  readonly served = new Map<string, number>();
  /** Requests answered, 404s included. */
  requests = 0;

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(dir: string): Promise<MediaServer> {
    let media: MediaServer | undefined;
    const server = http.createServer((request, response) => media!.answer(dir, request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    media = new MediaServer(server, (server.address() as AddressInfo).port);
    return media;
  }

  url(file: string): string {
    return `http://127.0.0.1:${this.port}${file}`;
  }

  /** Body bytes served in all, or for paths starting with `prefix`. */
  bytesServed(prefix = '/'): number {
    let total = 0;
    for (const [file, bytes] of this.served) if (file.startsWith(prefix)) total += bytes;
    return total;
  }

  reset(): void {
    this.served.clear();
    this.requests = 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private answer(dir: string, request: http.IncomingMessage, response: http.ServerResponse): void {
    this.requests++;
    const file = decodeURIComponent((request.url ?? '/').split('?')[0]);
    let body: Buffer;
    try {
      if (file.includes('..')) throw new Error('outside');
      body = readFileSync(path.join(dir, file));
    } catch {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    let start = 0;
    let end = body.length - 1;
    let status = 200;
    const headers: Record<string, string | number> = { 'Content-Type': type, 'Accept-Ranges': 'bytes' };
    if (range && (range[1] !== '' || range[2] !== '')) {
      if (range[1] === '') start = Math.max(0, body.length - Number(range[2]));
      else {
        start = Number(range[1]);
        if (range[2] !== '') end = Math.min(end, Number(range[2]));
      }
      if (start >= body.length || start > end) {
        response.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${body.length}`;
    }
    const slice = body.subarray(start, end + 1);
    headers['Content-Length'] = slice.length;
    response.writeHead(status, headers);
    response.on('finish', () => this.served.set(file, (this.served.get(file) ?? 0) + slice.length));
    response.end(request.method === 'HEAD' ? undefined : slice);
  }
}
