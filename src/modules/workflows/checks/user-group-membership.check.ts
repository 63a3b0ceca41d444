import { CHECK_PREFIX, SCOPE_ADMIN } from '../workflow.constants';
import { CheckInvalidError, OPERATOR_INVALID, type CheckDefinition } from './check.types';

/**
 * Nextcloud's UserGroupMembership on devplane: a group is an organization (`acme`), a team
 * (`acme/devs`) or `admin` (site administrators). Compared case-insensitively; stored as sent.
 */
export const UserGroupMembershipCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}UserGroupMembership`,
  name: 'User group membership',
  operators: ['is', '!is'],
  valueFormat:
    'a group: an organization name ("acme"), a team as "org/team", or "admin" (site administrators)',
  examples: ['admin', 'acme', 'acme/devs'],
  supportedEntities: [],
  scopes: [SCOPE_ADMIN],
  needsGroups: true,
  async validate(operator, value, deps) {
    if (operator !== 'is' && operator !== '!is') throw new CheckInvalidError(OPERATOR_INVALID);
    if (!(await deps.groupExists(value))) throw new CheckInvalidError('The given group does not exist');
  },
  compile(operator, value) {
    const group = value.toLowerCase();
    const negate = operator === '!is';
    return (s) => {
      const member = s.actorUserId !== null && (s.groups?.has(group) ?? false);
      return negate ? !member : member;
    };
  },
};
