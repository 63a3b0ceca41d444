import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ScaleIndexes1796676977232 implements MigrationInterface {
  name = 'ScaleIndexes1796676977232';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_repositories_fork" ON "repositories"  ("fork_id") WHERE fork_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_issues_repository_kind_open" ON "issues"  ("repository_id", "is_pull", "created_at", "id") WHERE is_closed = false`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_issues_repository_kind_created" ON "issues"  ("repository_id", "is_pull", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pull_requests_head" ON "pull_requests"  ("head_repository_id", "head_branch") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_pull_requests_head"`);
    await queryRunner.query(`DROP INDEX "IDX_issues_repository_kind_created"`);
    await queryRunner.query(`DROP INDEX "IDX_issues_repository_kind_open"`);
    await queryRunner.query(`DROP INDEX "IDX_repositories_fork"`);
  }
}
