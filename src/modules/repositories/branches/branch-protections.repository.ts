import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { BranchProtection } from './branch-protection.entity';

/** The `branch_protections` table (a rule's users and teams by id; their names come from identity's directory). */
@Injectable()
export class BranchProtectionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get rules() {
    return this.dataSource.manager.getRepository(BranchProtection);
  }

  ofRepository(repositoryId: string): Promise<BranchProtection[]> {
    return this.rules.findBy({ repositoryId });
  }

  findByName(repositoryId: string, ruleName: string): Promise<BranchProtection | null> {
    return this.rules.findOneBy({ repositoryId, ruleName });
  }

  findById(id: string): Promise<BranchProtection | null> {
    return this.rules.findOneBy({ id });
  }

  /** The highest priority of the repository's rules (0 without rules). */
  async maxPriority(repositoryId: string): Promise<number> {
    const row = await this.rules
      .createQueryBuilder('rule')
      .select('COALESCE(MAX(rule.priority), 0)', 'max')
      .where('rule.repository_id = :id', { id: repositoryId })
      .getRawOne<{ max: string }>();
    return Number(row?.max ?? 0);
  }

  /** A new rule, not saved yet. */
  build(values: Partial<BranchProtection>): BranchProtection {
    return this.rules.create(values);
  }

  save(rule: BranchProtection, manager?: EntityManager): Promise<BranchProtection> {
    return (manager ? manager.getRepository(BranchProtection) : this.rules).save(rule);
  }

  async delete(id: string): Promise<void> {
    await this.rules.delete({ id });
  }

  /** Priorities 1, 2, 3… in the given order, in one transaction; ids of other repositories are ignored. */
  async setPriorities(repositoryId: string, ids: number[]): Promise<void> {
    await this.dataSource.manager.transaction(async (manager) => {
      let priority = 1;
      for (const id of ids) {
        const result = await manager
          .getRepository(BranchProtection)
          .update({ id: String(id), repositoryId }, { priority: String(priority) });
        if (result.affected) priority++;
      }
    });
  }

  /** A branch rename renames the rule that names it exactly, unless a rule of the new name exists. */
  async followBranchRename(
    manager: EntityManager,
    repositoryId: string,
    ruleId: string,
    to: string,
  ): Promise<void> {
    const taken = await manager.getRepository(BranchProtection).existsBy({ repositoryId, ruleName: to });
    if (!taken) await manager.getRepository(BranchProtection).update({ id: ruleId }, { ruleName: to });
  }
}
