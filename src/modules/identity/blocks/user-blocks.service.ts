import { Injectable } from '@nestjs/common';
import { BadRequestError } from '../../../platform/errors/domain-error';
import type { User } from '../entities/user.entity';
import { UserBlocksRepository } from './user-blocks.repository';

/**
 * Gitea's user blocking (`/user/blocks`, `/orgs/{org}/blocks`). A blocked user cannot write to
 * what the blocker owns or posted: modules ask `isBlockedByAny(doer, [owner, poster])` and answer
 * 403 `user is blocked` (attachments today).
 */
@Injectable()
export class UserBlocksService {
  constructor(private readonly blocks: UserBlocksRepository) {}

  async block(blocker: User, blockee: User, note: string): Promise<void> {
    // Gitea: ErrCanNotBlock for oneself, organizations and site administrators.
    if (blocker.id === blockee.id || blockee.type === 'organization' || blockee.isAdmin)
      throw new BadRequestError('user can not be blocked', { code: 'CANNOT_BLOCK' });
    await this.blocks.upsert(blocker.id, blockee.id, note.slice(0, 255));
  }

  async unblock(blocker: User, blockee: User): Promise<void> {
    if (!(await this.blocks.delete(blocker.id, blockee.id)))
      throw new BadRequestError('user can not be unblocked', { code: 'CANNOT_UNBLOCK' });
  }

  isBlocked(blocker: User, blockee: User): Promise<boolean> {
    return this.blocks.exists(blocker.id, blockee.id);
  }

  /** Whether any of `blockerIds` (users or organizations) blocks `doerId`. */
  async isBlockedByAny(doerId: string, blockerIds: (string | null | undefined)[]): Promise<boolean> {
    const ids = [...new Set(blockerIds.filter((id): id is string => !!id && id !== doerId))];
    if (ids.length === 0) return false;
    return this.blocks.existsByAny(doerId, ids);
  }

  async list(
    blocker: User,
    page: { offset: number; limit: number },
  ): Promise<{ items: User[]; total: number }> {
    const [rows, total] = await this.blocks.page(blocker.id, page.offset, page.limit);
    return { items: rows.map((row) => row.blockee), total };
  }
}
