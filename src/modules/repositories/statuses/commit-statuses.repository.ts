import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CommitStatus } from './commit-status.entity';

/** The `commit_statuses` table. */
@Injectable()
export class CommitStatusesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get rows() {
    return this.dataSource.manager.getRepository(CommitStatus);
  }

  async insert(row: Partial<CommitStatus>): Promise<CommitStatus> {
    const saved = await this.rows.save(this.rows.create(row));
    return (await this.rows.findOne({ where: { id: saved.id }, relations: { creator: true } }))!;
  }

  /** Every status of a commit, newest first. */
  ofCommit(repositoryId: string, sha: string): Promise<CommitStatus[]> {
    return this.rows.find({
      where: { repositoryId, sha },
      relations: { creator: true },
      order: { id: 'DESC' },
    });
  }
}
