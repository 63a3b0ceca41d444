import { AiInterception } from './ai-interception.entity';
import { AiProvider } from './ai-provider.entity';
import { AiSeat, AiTokenUsage, AiToolUsage, AiUserPrompt } from './ai-records.entity';

export const AI_GATEWAY_ENTITIES = [
  AiProvider,
  AiInterception,
  AiTokenUsage,
  AiUserPrompt,
  AiToolUsage,
  AiSeat,
];
