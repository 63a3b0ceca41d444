import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PullDiffStats1795759950808 implements MigrationInterface {
  name = 'PullDiffStats1795759950808';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pull_requests" ADD "additions" integer`);
    await queryRunner.query(`ALTER TABLE "pull_requests" ADD "deletions" integer`);
    await queryRunner.query(`ALTER TABLE "pull_requests" ADD "changed_files" integer`);
    await queryRunner.query(`ALTER TABLE "pull_requests" ADD "commits_count" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP COLUMN "commits_count"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP COLUMN "changed_files"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP COLUMN "deletions"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP COLUMN "additions"`);
  }
}
