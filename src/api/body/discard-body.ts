import type { Request, Response } from 'express';

/** The most bytes of a refused body read and thrown away so the client can read the answer (issue #46.7). */
export const DISCARD_BOUND_BYTES = 64 * 1024 * 1024;
/** The longest a refused body is drained before the connection is closed anyway. */
const DISCARD_MS = 30_000;

/**
 * Stops using a request whose answer is an error, and lets the client read that answer (issue #46.7).
 * Closing the connection while the client still sends makes the kernel answer its bytes with a reset,
 * and a client that is still writing (Node's fetch) then loses the 413 already on the wire ("fetch
 * failed"). So the rest of the body is read and thrown away, raw, never inflated, and the connection
 * stays usable, up to DISCARD_BOUND_BYTES or DISCARD_MS; a body declared larger than the bound is
 * answered with `Connection: close` at once (reading it all would cost more than the client's
 * convenience), and one that goes on past the bound or the time is cut off.
 */
export function discardRest(req: Request, res: Response): void {
  req.unpipe();
  if (req.complete || req.destroyed) return;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > DISCARD_BOUND_BYTES) {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    req.resume();
    return;
  }
  let discarded = 0;
  const cutOff = (): void => {
    cleanup();
    req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > DISCARD_BOUND_BYTES) cutOff();
  };
  const cleanup = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', cleanup);
    req.off('close', cleanup);
  };
  const timer = setTimeout(cutOff, DISCARD_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', cleanup);
  req.once('close', cleanup);
  req.resume();
}
