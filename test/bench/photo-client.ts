// The photo benches' client: one keep-alive connection that sends a whole PUT /photo in one write
// and waits for the answer's head, timed from the first byte handed to the socket.

import net from 'node:net';
import { latin1Encode } from '../../src/bytes';
import { within } from '../e2e/receiver-process';

export class PhotoClient {
  private received = '';
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => {
      this.received += data.toString('latin1');
      this.wake?.();
    });
  }

  static connect(port: number): Promise<PhotoClient> {
    return within(
      3000,
      `connect to 127.0.0.1:${port}`,
      new Promise((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(new PhotoClient(socket)));
        socket.once('error', reject);
      }),
    );
  }

  /**
   * Sends `request` in one write; resolves once a 200 response's head (and its Content-Length
   * body) arrived, with when the first byte was handed to the socket and when the head came.
   * Any other status rejects, naming it.
   */
  async send(request: Uint8Array): Promise<{ firstByteAt: number; answeredAt: number }> {
    const firstByteAt = performance.now();
    await new Promise<void>((resolve, reject) => {
      this.socket.write(request, (error) => (error ? reject(error) : resolve()));
    });
    const answeredAt = await within(
      10_000,
      'the response to PUT /photo',
      new Promise<number>((resolve, reject) => {
        const check = () => {
          const end = this.received.indexOf('\r\n\r\n');
          if (end < 0) return;
          const at = performance.now();
          const head = this.received.slice(0, end);
          const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (this.received.length < end + 4 + length) return;
          this.received = this.received.slice(end + 4 + length);
          this.wake = undefined;
          if (!head.startsWith('HTTP/1.1 200 ')) reject(new Error(`unexpected response: ${head.split('\r\n')[0]}`));
          else resolve(at);
        };
        this.wake = check;
        check();
      }),
    );
    return { firstByteAt, answeredAt };
  }

  close(): void {
    this.socket.destroy();
  }
}

/** PUT /photo of `jpeg` with a session id, a transition and `key` if given, as a sender sends one, in one array. */
export function photoRequest(jpeg: Uint8Array, key?: string): Uint8Array {
  const head = latin1Encode(
    'PUT /photo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Vendor-Session-ID: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d\r\n' +
      (key === undefined ? '' : `X-Vendor-AssetKey: ${key}\r\n`) +
      `X-Vendor-Transition: Dissolve\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`,
  );
  const request = new Uint8Array(head.length + jpeg.length);
  request.set(head);
  request.set(jpeg, head.length);
  return request;
}
