import { Injectable } from '@nestjs/common';

/** In-process wake-up line between the enqueuer and this instance's dispatcher. */
@Injectable()
export class DispatchWaker {
  private listener: (() => void) | undefined;

  onWake(listener: () => void): void {
    this.listener = listener;
  }

  wake(): void {
    this.listener?.();
  }
}
