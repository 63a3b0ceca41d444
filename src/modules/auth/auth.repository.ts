import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { OAuthConvertState } from './entities/oauth-convert-state.entity';
import { OneTimePasscode } from './entities/one-time-passcode.entity';
import { TokenAllowList } from './entities/token-allow-list.entity';
import type { AllowListEntry } from './rbac/rbac-scopes';

/**
 * SQL on auth's own tables: login conversion states, one-time passcodes and API key allow-lists.
 * Methods used inside a caller's transaction take its manager.
 */
@Injectable()
export class AuthRepository {
  constructor(private readonly dataSource: DataSource) {}

  // ---------------------------------------------------------------------------- login conversion

  /** Replaces the user's pending conversion with this one. */
  async replaceConversion(
    row: Pick<OAuthConvertState, 'state' | 'userId' | 'fromLoginType' | 'toLoginType' | 'expiresAt'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    const repo = manager.getRepository(OAuthConvertState);
    await repo.delete({ userId: row.userId });
    await repo.insert(row);
  }

  findConversion(
    state: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<OAuthConvertState | null> {
    return manager.getRepository(OAuthConvertState).findOneBy({ state });
  }

  async deleteConversions(userId: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.getRepository(OAuthConvertState).delete({ userId });
  }

  // ---------------------------------------------------------------------------- one-time passcodes

  async savePasscode(
    row: Pick<OneTimePasscode, 'userId' | 'hashedPasscode' | 'expiresAt'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.getRepository(OneTimePasscode).upsert(row, ['userId']);
  }

  findPasscode(userId: string): Promise<OneTimePasscode | null> {
    return this.dataSource.getRepository(OneTimePasscode).findOneBy({ userId });
  }

  /** Deletes the passcode if it is still this one; whether a row was deleted (single use). */
  async consumePasscode(
    userId: string,
    hashedPasscode: Buffer,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const deleted = await manager.getRepository(OneTimePasscode).delete({ userId, hashedPasscode });
    return !!deleted.affected;
  }

  // ------------------------------------------------------------------------------- allow-lists

  async insertAllowList(
    tokenId: string,
    entries: TokenAllowList['entries'],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.getRepository(TokenAllowList).insert({ tokenId, entries });
  }

  allowListsOf(tokenIds: string[]): Promise<TokenAllowList[]> {
    return this.dataSource
      .getRepository(TokenAllowList)
      .find({ where: tokenIds.map((tokenId) => ({ tokenId })) });
  }

  /** The stored allow-list of a key, or null (none stored, or no key: `''`). */
  async allowListEntries(tokenId: string): Promise<AllowListEntry[] | null> {
    const result: { allow_list: AllowListEntry[] | null }[] = await this.dataSource.query(
      'SELECT (SELECT entries FROM auth_token_allow_lists WHERE token_id = $1) AS allow_list',
      [tokenId],
    );
    return result[0]?.allow_list ?? null;
  }
}
