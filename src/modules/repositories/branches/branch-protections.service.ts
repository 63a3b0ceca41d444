import { IdentityDirectory } from '../../identity/identity-directory.service';
import { Injectable, Logger } from '@nestjs/common';
import {
  BadRequestError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import type { Team } from '../../identity/entities/team.entity';
import type { User } from '../../identity/entities/user.entity';
import { OrganizationsService } from '../../identity/organizations.service';
import { UsersService } from '../../identity/users.service';
import type { Repository } from '../entities/repository.entity';
import { CollaboratorsRepository } from '../collaborators.repository';
import { EventBus } from '../../../platform/events/event-bus.service';
import { type AccessMode, atLeast, RepositoryPermissions } from '../repository-permissions.service';
import type { BranchProtection } from './branch-protection.entity';
import { BranchProtectionsRepository } from './branch-protections.repository';
import { ProtectionRuleSet, type RuleSubject, sortRules } from './protection-rules';

/** The fields of Gitea's Create/EditBranchProtectionOption; absent = not given (edit: unchanged). */
export interface ProtectionInput {
  ruleName?: string;
  priority?: number;
  enablePush?: boolean;
  enablePushWhitelist?: boolean;
  pushWhitelistUsernames?: string[] | null;
  pushWhitelistTeams?: string[] | null;
  pushWhitelistDeployKeys?: boolean;
  enableForcePush?: boolean;
  enableForcePushAllowlist?: boolean;
  forcePushAllowlistUsernames?: string[] | null;
  forcePushAllowlistTeams?: string[] | null;
  forcePushAllowlistDeployKeys?: boolean;
  enableMergeWhitelist?: boolean;
  mergeWhitelistUsernames?: string[] | null;
  mergeWhitelistTeams?: string[] | null;
  enableStatusCheck?: boolean;
  statusCheckContexts?: string[] | null;
  requiredApprovals?: number;
  enableApprovalsWhitelist?: boolean;
  approvalsWhitelistUsernames?: string[] | null;
  approvalsWhitelistTeams?: string[] | null;
  blockOnRejectedReviews?: boolean;
  blockOnOfficialReviewRequests?: boolean;
  blockOnOutdatedBranch?: boolean;
  dismissStaleApprovals?: boolean;
  ignoreStaleApprovals?: boolean;
  requireSignedCommits?: boolean;
  protectedFilePatterns?: string;
  unprotectedFilePatterns?: string;
  blockAdminMergeOverride?: boolean;
}

type ListKind = 'push' | 'forcePush' | 'merge' | 'approvals';
const LISTS: {
  kind: ListKind;
  users: keyof ProtectionInput;
  teams: keyof ProtectionInput;
  userIds: keyof BranchProtection;
  teamIds: keyof BranchProtection;
}[] = [
  {
    kind: 'push',
    users: 'pushWhitelistUsernames',
    teams: 'pushWhitelistTeams',
    userIds: 'pushWhitelistUserIds',
    teamIds: 'pushWhitelistTeamIds',
  },
  {
    kind: 'forcePush',
    users: 'forcePushAllowlistUsernames',
    teams: 'forcePushAllowlistTeams',
    userIds: 'forcePushAllowlistUserIds',
    teamIds: 'forcePushAllowlistTeamIds',
  },
  {
    kind: 'merge',
    users: 'mergeWhitelistUsernames',
    teams: 'mergeWhitelistTeams',
    userIds: 'mergeWhitelistUserIds',
    teamIds: 'mergeWhitelistTeamIds',
  },
  {
    kind: 'approvals',
    users: 'approvalsWhitelistUsernames',
    teams: 'approvalsWhitelistTeams',
    userIds: 'approvalsWhitelistUserIds',
    teamIds: 'approvalsWhitelistTeamIds',
  },
];

/** Scalars copied as given (create) or when present (edit). */
const PLAIN_FLAGS = [
  'enableMergeWhitelist',
  'enableStatusCheck',
  'enableApprovalsWhitelist',
  'blockOnRejectedReviews',
  'blockOnOfficialReviewRequests',
  'blockOnOutdatedBranch',
  'dismissStaleApprovals',
  'ignoreStaleApprovals',
  'requireSignedCommits',
  'blockAdminMergeOverride',
] as const;

function alreadyExists(): ForbiddenError {
  return new ForbiddenError('Branch protection already exist', 'permission', {
    code: 'BRANCH_PROTECTION_EXISTS',
  });
}

export function protectionNotFound(): NotFoundError {
  return new NotFoundError("The target couldn't be found.", { code: 'BRANCH_PROTECTION_NOT_FOUND' });
}

/**
 * Branch protection rules of a repository (Gitea's routers/api/v1/repo/branch.go and
 * models/git/protected_branch.go): create/edit with Gitea's derived flags and list resolution,
 * priorities, and the questions the rest of the module asks (effective rule, who may push or merge).
 */
@Injectable()
export class BranchProtectionsService {
  private readonly logger = new Logger(BranchProtectionsService.name);

  constructor(
    private readonly rules: BranchProtectionsRepository,
    private readonly collaborators: CollaboratorsRepository,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly permissions: RepositoryPermissions,
    private readonly events: EventBus,
    private readonly directory: IdentityDirectory,
  ) {}

  async list(repo: Repository): Promise<BranchProtection[]> {
    return sortRules(await this.rules.ofRepository(repo.id));
  }

  async ruleSet(repo: Repository): Promise<ProtectionRuleSet> {
    return new ProtectionRuleSet(await this.rules.ofRepository(repo.id));
  }

  findByName(repo: Repository, name: string): Promise<BranchProtection | null> {
    return this.rules.findByName(repo.id, name);
  }

  async requireByName(repo: Repository, name: string): Promise<BranchProtection> {
    const rule = await this.findByName(repo, name);
    if (!rule) throw protectionNotFound();
    return rule;
  }

  /** The user's standing for rule checks: code write on the repository and teams in its organization. */
  /** `knownMode`: the user's mode when the caller already computed it (a push session's authorization). */
  async subjectOf(user: User, repo: Repository, knownMode?: AccessMode): Promise<RuleSubject> {
    const mode = knownMode ?? (await this.permissions.modeOf(user, repo));
    const teams =
      repo.owner?.type === 'organization' ? await this.organizations.teamsOf(user.id, repo.ownerId) : [];
    return {
      userId: user.id,
      canWrite: atLeast(mode, 'write'),
      teamIds: new Set(teams.map((team) => team.id)),
    };
  }

  async create(repo: Repository, input: ProtectionInput): Promise<BranchProtection> {
    const ruleName = input.ruleName ?? '';
    if (!ruleName)
      throw new BadRequestError('both rule_name and branch_name are empty', {
        code: 'BRANCH_PROTECTION_NAME',
      });
    if (await this.findByName(repo, ruleName)) throw alreadyExists();
    const lists = await this.resolveLists(repo, input, null);
    const enablePush = input.enablePush ?? false;
    const enableForcePush = enablePush && (input.enableForcePush ?? false);
    let priority = input.priority ?? 0;
    if (priority <= 0) {
      priority = (await this.rules.maxPriority(repo.id)) + 1;
    }
    const rule = this.rules.build({
      repositoryId: repo.id,
      ruleName,
      priority: String(priority),
      enablePush,
      enablePushWhitelist: enablePush && (input.enablePushWhitelist ?? false),
      pushWhitelistDeployKeys:
        enablePush && (input.enablePushWhitelist ?? false) && (input.pushWhitelistDeployKeys ?? false),
      enableForcePush,
      enableForcePushAllowlist: enableForcePush && (input.enableForcePushAllowlist ?? false),
      forcePushAllowlistDeployKeys:
        enableForcePush &&
        (input.enableForcePushAllowlist ?? false) &&
        (input.forcePushAllowlistDeployKeys ?? false),
      statusCheckContexts: input.statusCheckContexts ?? null,
      requiredApprovals: String(Math.max(0, input.requiredApprovals ?? 0)),
      protectedFilePatterns: input.protectedFilePatterns ?? '',
      unprotectedFilePatterns: input.unprotectedFilePatterns ?? '',
      ...lists,
    });
    for (const flag of PLAIN_FLAGS) rule[flag] = input[flag] ?? false;
    const saved = await this.rules.save(rule).catch((error: unknown) => {
      // A concurrent create of the same name lost the unique index: the same answer as the check above.
      if ((error as { driverError?: { code?: string } }).driverError?.code === '23505') throw alreadyExists();
      throw error;
    });
    await this.recheckPulls(repo, saved);
    return (await this.rules.findById(saved.id))!;
  }

  async edit(repo: Repository, rule: BranchProtection, input: ProtectionInput): Promise<BranchProtection> {
    if (input.enablePush !== undefined) {
      if (!input.enablePush) {
        rule.enablePush = false;
        rule.enablePushWhitelist = false;
        rule.pushWhitelistDeployKeys = false;
      } else {
        rule.enablePush = true;
        if (input.enablePushWhitelist !== undefined) {
          if (!input.enablePushWhitelist) {
            rule.enablePushWhitelist = false;
            rule.pushWhitelistDeployKeys = false;
          } else {
            rule.enablePushWhitelist = true;
            if (input.pushWhitelistDeployKeys !== undefined)
              rule.pushWhitelistDeployKeys = input.pushWhitelistDeployKeys;
          }
        }
      }
    }
    if (input.enableForcePush !== undefined) {
      if (!input.enableForcePush) {
        rule.enableForcePush = false;
        rule.enableForcePushAllowlist = false;
        rule.forcePushAllowlistDeployKeys = false;
      } else {
        rule.enableForcePush = true;
        if (input.enableForcePushAllowlist !== undefined) {
          if (!input.enableForcePushAllowlist) {
            rule.enableForcePushAllowlist = false;
            rule.forcePushAllowlistDeployKeys = false;
          } else {
            rule.enableForcePushAllowlist = true;
            if (input.forcePushAllowlistDeployKeys !== undefined)
              rule.forcePushAllowlistDeployKeys = input.forcePushAllowlistDeployKeys;
          }
        }
      }
    }
    for (const flag of PLAIN_FLAGS) if (input[flag] !== undefined) rule[flag] = input[flag];
    if (input.statusCheckContexts !== undefined && input.statusCheckContexts !== null)
      rule.statusCheckContexts = input.statusCheckContexts;
    if (input.requiredApprovals !== undefined && input.requiredApprovals >= 0)
      rule.requiredApprovals = String(input.requiredApprovals);
    if (input.protectedFilePatterns !== undefined) rule.protectedFilePatterns = input.protectedFilePatterns;
    if (input.unprotectedFilePatterns !== undefined)
      rule.unprotectedFilePatterns = input.unprotectedFilePatterns;
    if (input.priority !== undefined && input.priority > 0) rule.priority = String(input.priority);
    Object.assign(rule, await this.resolveLists(repo, input, rule));
    const saved = await this.rules.save(rule);
    await this.recheckPulls(repo, saved);
    return (await this.rules.findById(saved.id))!;
  }

  async delete(rule: BranchProtection): Promise<void> {
    await this.rules.delete(rule.id);
  }

  /** Priorities 1, 2, 3… in the given order; ids of other repositories are ignored. */
  async setPriorities(repo: Repository, ids: number[]): Promise<void> {
    await this.rules.setPriorities(repo.id, ids);
  }

  /**
   * The user and team lists of the input as ids: unknown names are 422 (Gitea's texts); teams count
   * only for organization-owned repositories; users and teams without write access are dropped.
   * A list absent from the input keeps the rule's (create: empty).
   */
  private async resolveLists(
    repo: Repository,
    input: ProtectionInput,
    existing: BranchProtection | null,
  ): Promise<Partial<BranchProtection>> {
    const out: Partial<Record<keyof BranchProtection, string[]>> = {};
    const isOrganization = repo.owner?.type === 'organization';
    for (const list of LISTS) {
      const names = input[list.users] as string[] | null | undefined;
      if (names === undefined || names === null) {
        if (!existing) out[list.userIds] = [];
      } else {
        const ids: string[] = [];
        for (const name of names) {
          const user = await this.users.findByName(name);
          if (!user)
            throw new InvalidError(`user does not exist [uid: 0, name: ${name}]`, { code: 'USER_NOT_FOUND' });
          if (atLeast(await this.permissions.modeOf(user, repo), 'write') && !ids.includes(user.id))
            ids.push(user.id);
        }
        out[list.userIds] = ids;
      }
      const teamNames = input[list.teams] as string[] | null | undefined;
      if (!isOrganization || teamNames === undefined || teamNames === null) {
        if (!existing) out[list.teamIds] = [];
        continue;
      }
      const teamIds: string[] = [];
      for (const name of teamNames) {
        const team = await this.organizations.findTeam(repo.ownerId, name);
        if (!team)
          throw new InvalidError(`team does not exist [org_id: ${repo.ownerId}, team_id: 0, name: ${name}]`, {
            code: 'TEAM_NOT_FOUND',
          });
        if ((await this.teamCanWrite(team, repo)) && !teamIds.includes(team.id)) teamIds.push(team.id);
      }
      out[list.teamIds] = teamIds;
    }
    return out as Partial<BranchProtection>;
  }

  private async teamCanWrite(team: Team, repo: Repository): Promise<boolean> {
    if (!['write', 'admin', 'owner'].includes(team.permission)) return false;
    return team.includesAllRepositories || (await this.collaborators.teamLinked(team.id, repo.id));
  }

  /** User and team names for the rule's id lists (accounts and teams that no longer exist are left out). */
  async names(rule: BranchProtection): Promise<{ users: Map<string, string>; teams: Map<string, string> }> {
    const userIds = [...new Set(LISTS.flatMap((list) => rule[list.userIds] as string[]))];
    const teamIds = [...new Set(LISTS.flatMap((list) => rule[list.teamIds] as string[]))];
    const users = new Map<string, string>();
    for (const [id, account] of await this.directory.namesByIds(userIds)) users.set(id, account.name);
    const teams = new Map<string, string>();
    for (const id of teamIds) {
      const team = await this.organizations.findTeamById(id);
      if (team) teams.set(team.id, team.name);
    }
    return { users, teams };
  }

  /**
   * Open pull requests whose base the rule governs get their mergeable state computed again: told by
   * an event (`branch_protection.changed`, awaited; PullsService listens), not a call into pulls.
   */
  private async recheckPulls(repo: Repository, rule: BranchProtection): Promise<void> {
    try {
      await this.events.emitAsync('branch_protection.changed', { repositoryId: repo.id, rule });
    } catch (error) {
      this.logger.warn(
        { err: error, repositoryId: repo.id },
        'rechecking pull requests after a protection change failed',
      );
    }
  }
}
