import { Injectable } from '@nestjs/common';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { PREBUILDS_USER_ID, PREBUILDS_USER_NAME } from './events';
import type { UserSummary } from './workspace-views';

/**
 * What workspaces show of accounts (owners, initiators, organizations, ACL groups), read through
 * identity's directory: workspaces keep uuids and never read identity's tables.
 */
@Injectable()
export class WorkspaceAccounts {
  constructor(private readonly directory: IdentityDirectory) {}

  /** Names and avatars by account uuid (users and organizations), the prebuilds system user included. */
  async summaries(uuids: string[]): Promise<Map<string, UserSummary>> {
    const map = new Map<string, UserSummary>([
      [PREBUILDS_USER_ID, { name: PREBUILDS_USER_NAME, avatar_url: '' }],
    ]);
    const accounts = await this.directory.namesByUuids(
      uuids.filter((uuid) => uuid && uuid !== PREBUILDS_USER_ID),
    );
    for (const [uuid, account] of accounts)
      map.set(uuid, { name: account.name, avatar_url: account.avatarUrl ?? '' });
    return map;
  }

  /** Group (team) names by uuid; none when the read fails. */
  groupNames(uuids: string[]): Promise<{ uuid: string; name: string }[]> {
    return this.directory.teamNamesByUuids(uuids).catch(() => []);
  }
}
