import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { InvalidError } from '../../../platform/errors/domain-error';

/**
 * Nextcloud's `POST /login/confirm` answers every failure with 403 `[]`: a body that fails
 * ConfirmPasswordDto (missing, empty or non-string password, a body that is not an object) gets
 * that answer too, like a wrong password. Other errors (401, rate limit) keep their rendering.
 */
@Catch(InvalidError)
export class ConfirmPasswordFailureFilter implements ExceptionFilter {
  catch(_error: InvalidError, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(403).json([]);
  }
}
