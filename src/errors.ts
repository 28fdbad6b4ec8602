// Errors as values (STYLE): the RequestError a handler throws to refuse a request, answered at one
// place (the router), and describeError, the one way a thrown value becomes words in a reason or
// a log line.

/**
 * A request the receiver refuses, with the status to answer and a reason a person can act on
 * (`Start-Position 2 is not a fraction from 0 to 1`). A handler throws it, or a feature's own
 * subclass (VideoRequestError, PairingError, StreamRequestError); the router answers it once
 * (receiver/connection/router.ts `refusalOf`): the status, the reason as a one-line text body,
 * and the reason in the connection's log line. Any other error escaping a handler is a fault of
 * the receiver, answered 500.
 */
export class RequestError extends Error {
  override name = 'RequestError';

  constructor(
    /** The status answered (400, 404, 415, 501...). */
    readonly status: number,
    reason: string,
    /**
     * The status line's reason phrase in place of the status's usual one, for refusals a sender
     * shows its user by the status line alone (pyatv prints `501 Not Implemented`, never the body).
     */
    readonly phrase?: string,
  ) {
    super(reason);
  }
}

/**
 * What `work` returns; a RequestError it throws is thrown again with `context: ` before its
 * reason, its status kept, so the refusal names what was refused (`POST /scrub: no position=
 * in the query`).
 */
export function inContext<T>(context: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    throw new RequestError(error.status, `${context}: ${error.message}`);
  }
}

/**
 * Any thrown value in words: an Error's message, anything else as a string (a host port may
 * throw a string or a number, and XS errors from native code are Errors without a stack).
 */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
