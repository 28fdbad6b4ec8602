// Python's `http.server` serving a folder on loopback: the media server people start in a
// minute (`python3 -m http.server`), and one that knows no byte ranges (it answers every Range
// request 200 with the whole file, without Accept-Ranges). Started on a free port, stopped by
// the test; Node only.

import { spawn, type ChildProcess } from 'node:child_process';
import { within } from '../e2e/receiver-process';

export class PythonHttpServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  /** Serves `dir` on 127.0.0.1, on a port the system picks (port 0). */
  static async start(dir: string): Promise<PythonHttpServer> {
    // -u: the "Serving HTTP on ... port N" line comes at once, not when a buffer fills.
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    const port = await within(
      10_000,
      'python3 -m http.server to say its port',
      new Promise<number>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').on('data', (text: string) => {
          said += text;
          const match = /port (\d+)/.exec(said);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`python3 -m http.server exited (${code}): ${said}`)));
        child.once('error', reject);
      }),
    ).catch((error: Error) => {
      child.kill('SIGKILL');
      throw error;
    });
    // Its request log (stderr) is not read: drained, so it never blocks.
    child.stderr!.resume();
    return new PythonHttpServer(child, port);
  }

  url(file: string): string {
    return `http://127.0.0.1:${this.port}${file}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
