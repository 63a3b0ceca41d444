import { type CanActivate, Injectable } from '@nestjs/common';
import { SessionsService } from './sessions.service';

/**
 * The OTP routes answer 403 `Password authentication is disabled.` before looking at the body
 * (Coder's handler checks first); a guard runs before the ValidationPipe.
 */
@Injectable()
export class PasswordLoginEnabledGuard implements CanActivate {
  constructor(private readonly sessions: SessionsService) {}

  canActivate(): boolean {
    this.sessions.assertPasswordLoginEnabled();
    return true;
  }
}
