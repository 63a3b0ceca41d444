import { Injectable } from '@nestjs/common';
import { InvalidError } from '../../platform/errors/domain-error';
import { type PasswordVerdict, validatePasswordStrength } from '../identity/password-strength';

/** Raised when a new password fails the entropy rule (Coder: 400 `Invalid password.`). */
export class WeakPasswordError extends InvalidError {}

/**
 * The Coder-dialect password rule (reference B.4), for every password set through the Coder
 * dialect, the OTP reset and the CLI. Gitea's admin routes apply Gitea's configurable policy instead.
 */
@Injectable()
export class PasswordStrengthService {
  check(password: string): PasswordVerdict {
    return validatePasswordStrength(password);
  }

  /** Throws 400 `Invalid password.` with `validations:[{field, detail}]` when the password is weak. */
  assertStrong(password: string, field = 'password'): void {
    const verdict = validatePasswordStrength(password);
    if (!verdict.valid) {
      throw new WeakPasswordError('Invalid password.', {
        code: 'WEAK_PASSWORD',
        fields: [{ field, detail: verdict.details, rule: 'strength' }],
      });
    }
  }
}
