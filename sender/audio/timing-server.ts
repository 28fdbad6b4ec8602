// The classic audio stream's timing server (the SETUP's timing_port): answers the receiver's RAOP
// timing requests (0x52) with 0x53 from the sender's clock, so the receiver can tell how the
// sender's clock runs against its own.

import type dgram from 'node:dgram';
import { isRaopTimingRequest, raopTimingReply } from '../../src/timing';
import type { SenderClock } from './sender-clock';
import { bindUdp } from './udp';

export class TimingServer {
  /** Requests answered. */
  answered = 0;

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly clock: SenderClock,
  ) {
    socket.on('message', (message, remote) => this.answer(new Uint8Array(message.buffer, message.byteOffset, message.byteLength), remote));
  }

  static async open(receiverHost: string, clock: SenderClock): Promise<TimingServer> {
    return new TimingServer(await bindUdp(receiverHost), clock);
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** Answers one datagram when it is a timing request. */
  answer(request: Uint8Array, remote: dgram.RemoteInfo): void {
    if (!isRaopTimingRequest(request)) return;
    const received = this.clock.now();
    this.answered++;
    this.socket.send(raopTimingReply(request, received, this.clock.now()), remote.port, remote.address);
  }

  close(): void {
    this.socket.close();
  }
}
