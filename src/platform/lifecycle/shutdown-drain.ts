import {
  type CallHandler,
  type ExecutionContext,
  Global,
  Injectable,
  Module,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import { UnavailableError } from '../errors/domain-error';

/**
 * Requests that must finish before the server stops listening (issue 36 item 8). A `git push` is one:
 * git-receive-pack's hooks call back into the server on a new connection, so closing the listener while
 * a push runs rejects it. On SIGTERM `main.ts` calls `drain()` first: new requests of these routes get
 * 503 (retry elsewhere or later), every other request is still served, and the listener closes (Nest's
 * `app.close()`, which lets in-flight requests end) once the last tracked request ended or the drain
 * timed out.
 */
@Injectable()
export class ShutdownDrain {
  private draining = false;
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  get isDraining(): boolean {
    return this.draining;
  }

  /** Tracked requests still running. */
  get running(): number {
    return this.inFlight;
  }

  /** Registers a tracked request; call the returned function (idempotent) when it ended. */
  enter(): () => void {
    if (this.draining)
      throw new UnavailableError('The server is shutting down; try again shortly.', {
        code: 'SHUTTING_DOWN',
      });
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Refuses new tracked requests and waits for the running ones, at most `timeoutMs`; returns how many are left. */
  async drain(timeoutMs: number): Promise<number> {
    this.draining = true;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.inFlight;
  }
}

@Injectable()
export class FinishBeforeShutdownInterceptor implements NestInterceptor {
  constructor(private readonly drain: ShutdownDrain) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = this.drain.enter();
    return next.handle().pipe(finalize(release));
  }
}

/** The route's requests finish before the server stops listening, and are refused (503) while it drains. */
export function FinishBeforeShutdown(): MethodDecorator {
  return UseInterceptors(FinishBeforeShutdownInterceptor);
}

@Global()
@Module({
  providers: [ShutdownDrain, FinishBeforeShutdownInterceptor],
  exports: [ShutdownDrain, FinishBeforeShutdownInterceptor],
})
export class ShutdownDrainModule {}
