import type { Request, Response } from 'express';
import { UnavailableError } from '../../platform/errors/domain-error';

/** Requests that may wait for a slot; more are refused at once. */
const MAX_WAITING = 64;
/** Longest wait for a slot before a 503. */
const MAX_WAIT_MS = 60_000;
/** What a refused client is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

function busy(res: Response): UnavailableError {
  if (!res.headersSent) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  return new UnavailableError('Too many large request bodies are being read; try again shortly.', {
    code: 'LARGE_BODIES_BUSY',
  });
}

/**
 * Bounds how many large bodies (`@LargeJsonBody()`: npm publish documents, read and parsed in memory)
 * are in memory at once (issue #46.1): a request takes a slot before its first byte is read and keeps
 * it until its response is over (the parsed document lives as long as the handler). Others wait in
 * line without being read (TCP holds the client back); a request that waited `MAX_WAIT_MS`, or that
 * finds `MAX_WAITING` already waiting, is a 503 with `Retry-After` in the route's dialect. A client
 * that goes away while waiting leaves the line.
 */
export class LargeBodyGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots: number) {}

  /** Resolves once the request holds a slot (released when its response closes). */
  async enter(req: Request, res: Response): Promise<void> {
    if (this.active >= this.slots) await this.wait(req, res);
    else this.active++;
    res.once('close', () => this.leave());
  }

  /** Slots in use (tests, metrics). */
  get inUse(): number {
    return this.active;
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private wait(req: Request, res: Response): Promise<void> {
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(busy(res));
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        req.off('close', gone);
      };
      // The slot passes straight from the leaving request to this one (`active` unchanged).
      const turn = (): void => {
        done();
        resolve();
      };
      const drop = (): void => {
        const index = this.waiting.indexOf(turn);
        if (index !== -1) this.waiting.splice(index, 1);
        done();
      };
      const timer = setTimeout(() => {
        drop();
        reject(busy(res));
      }, MAX_WAIT_MS);
      timer.unref();
      const gone = (): void => {
        if (req.complete) return;
        drop();
        reject(busy(res));
      };
      req.on('close', gone);
      this.waiting.push(turn);
    });
  }
}
