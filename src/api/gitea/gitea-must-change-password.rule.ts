import { ForbiddenError } from '../../platform/errors/domain-error';
import type { CallerRule } from '../../platform/http/request-caller';

/**
 * Gitea refuses every API call of a signed-in user who must change the password, public routes
 * too, except the routes that let them do it (`allowMustChangePassword`). Applied to every
 * `@GiteaController` route (route metadata, never the path).
 */
export const GITEA_MUST_CHANGE_PASSWORD_RULE: CallerRule = {
  stage: 'identified',
  check({ caller, allowMustChangePassword }) {
    if (caller?.kind === 'user' && caller.mustChangePassword && !allowMustChangePassword) {
      throw new ForbiddenError('You must change your password.', 'must_change_password');
    }
  },
};
