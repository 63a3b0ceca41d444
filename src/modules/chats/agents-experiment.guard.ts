import { type CanActivate, Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { NotFoundError } from '../../platform/errors/domain-error';

export const AGENTS_EXPERIMENT = 'agents';

/** Chats exist only with the `agents` experiment (EXPERIMENTS); otherwise they are unknown routes, as Coder hides them. */
@Injectable()
export class AgentsExperimentGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.experiments.includes(AGENTS_EXPERIMENT))
      throw new NotFoundError('Route not found.', { code: 'ROUTE_NOT_FOUND' });
    return true;
  }
}
