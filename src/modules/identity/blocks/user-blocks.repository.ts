import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { UserBlock } from './user-block.entity';

/** SQL on `user_blocks`. */
@Injectable()
export class UserBlocksRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get blocks() {
    return this.dataSource.getRepository(UserBlock);
  }

  async upsert(blockerId: string, blockeeId: string, note: string): Promise<void> {
    await this.blocks.upsert({ blockerId, blockeeId, note }, ['blockerId', 'blockeeId']);
  }

  /** Whether a block was deleted. */
  async delete(blockerId: string, blockeeId: string): Promise<boolean> {
    const result = await this.blocks.delete({ blockerId, blockeeId });
    return !!result.affected;
  }

  exists(blockerId: string, blockeeId: string): Promise<boolean> {
    return this.blocks.existsBy({ blockerId, blockeeId });
  }

  existsByAny(blockeeId: string, blockerIds: string[]): Promise<boolean> {
    return this.blocks.existsBy({ blockeeId, blockerId: In(blockerIds) });
  }

  /** One page of a blocker's blocks, oldest first, with the blocked accounts, and the total. */
  page(blockerId: string, offset: number, limit: number): Promise<[UserBlock[], number]> {
    return this.blocks.findAndCount({
      where: { blockerId },
      relations: { blockee: true },
      order: { createdAt: 'ASC' },
      skip: offset,
      take: limit,
    });
  }
}
