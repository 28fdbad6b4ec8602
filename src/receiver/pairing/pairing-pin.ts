// The PIN a person reads off the receiver and types into the sender (spec 5.2): shown on the
// screen (the Display port) and in the log, from POST /pair-pin-start or from a pair-setup's M1,
// until the pair-setup ends or pairingTimeoutMs passes.
//
// A fixed PIN (config pin) is shown as it is. A random PIN (config pin "random", the default
// where a PIN is required and none is given) is drawn when first needed, shown, and kept until a
// proof uses it (right or wrong: PairSetup's pinSpent) or its time is up; then the next attempt
// draws another. A sender that asks /pair-pin-start and then starts pair-setup thus pairs with
// the PIN it was shown; a sender that starts with M1 is shown its PIN then and types it before
// M3. Each wrong guess spends the PIN, so guessing is 1 in 10,000 per attempt however long it goes on.

import { randomPin, RANDOM_PIN } from '../../pairing';
import type { Clock, Display, Logger, RandomSource } from '../../platform';
import type { Deadlines } from '../timers';

interface PairingPinContext {
  readonly config: { readonly pin: string; readonly limits: { readonly pairingTimeoutMs: number } };
  readonly clock: Clock;
  readonly timers: Deadlines;
  readonly log: Logger;
  readonly random: RandomSource;
  readonly display?: Pick<Display, 'showPin' | 'hidePin'>;
}

export class PairingPin {
  /** The random PIN drawn and not yet spent (random mode only). */
  private current: string | undefined;

  constructor(private readonly context: PairingPinContext) {}

  /** Whether the PIN is drawn per attempt. */
  get random(): boolean {
    return this.context.config.pin === RANDOM_PIN;
  }

  /** POST /pair-pin-start from `peer`: the PIN goes up (a random one is drawn if none is current). */
  start(peer: string): void {
    const { config, display, log } = this.context;
    if (this.random) {
      this.show(this.currentOrNew(), peer);
      return;
    }
    this.show(config.pin, peer, false);
    if (!display) log('info', `${peer} asks for the PIN; no display: the PIN is the configured one`);
  }

  /** The random PIN of the pair-setup attempt `peer` starts (or retries): the current one, or a new one; shown. */
  forAttempt(peer: string): string {
    const pin = this.currentOrNew();
    this.show(pin, peer);
    return pin;
  }

  /** A proof used the random PIN: the next attempt gets another. */
  spent(): void {
    this.current = undefined;
  }

  /** The pair-setup ended; an abandoned one leaves the PIN up (the next sender's user may be typing it). */
  ended(outcome: 'paired' | 'failed' | 'abandoned'): void {
    if (outcome === 'abandoned') return;
    if (this.context.timers.cancel('pairingPin')) this.context.display?.hidePin();
  }

  private currentOrNew(): string {
    this.current ??= randomPin(this.context.random);
    return this.current;
  }

  /** Shows `pin` until pairingTimeoutMs from now; a random PIN also goes to the log, where a person without a screen reads it. */
  private show(pin: string, peer: string, logIt = true): void {
    const { clock, timers, display, log, config } = this.context;
    timers.set('pairingPin', clock.now() + config.limits.pairingTimeoutMs, () => {
      // Its time is up: the next attempt draws another.
      if (this.current === pin) this.current = undefined;
      display?.hidePin();
    });
    if (logIt) log('info', `pairing PIN for ${peer}: ${pin}`);
    display?.showPin(pin);
  }
}
