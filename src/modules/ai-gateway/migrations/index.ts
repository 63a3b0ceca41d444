import { AiGateway1795741228277 } from './1795741228277-AiGateway';

export const AI_GATEWAY_MIGRATIONS: Function[] = [AiGateway1795741228277];
