import { Inject, Injectable } from '@nestjs/common';
import { AiSeats } from '../../platform/ports/ai-seats';
import { AI_GATEWAY_CONFIG, type AiGatewayConfig } from './ai-gateway.config';
import { InterceptionsRecorder } from './interceptions-recorder.service';

/** The AI seat port (platform/ports/ai-seats.ts): computed only when the entitlement is configured. */
@Injectable()
export class AiSeatsProvider extends AiSeats {
  constructor(
    private readonly recorder: InterceptionsRecorder,
    @Inject(AI_GATEWAY_CONFIG) private readonly config: AiGatewayConfig,
  ) {
    super();
  }

  async seatHolders(userIds: readonly string[]): Promise<ReadonlySet<string> | null> {
    if (this.config.aiSeatLimit === null) return null;
    if (userIds.length === 0) return new Set();
    return new Set((await this.recorder.seatHolders(userIds)).map((row) => row.user_id));
  }
}
