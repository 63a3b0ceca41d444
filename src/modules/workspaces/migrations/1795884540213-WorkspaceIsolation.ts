import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkspaceIsolation1795884540213 implements MigrationInterface {
  name = 'WorkspaceIsolation1795884540213';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_os_identities" ("workspace_id" uuid NOT NULL, "uid" integer NOT NULL, CONSTRAINT "UQ_041b2e4ff8d3c4563c8e37f6a1c" UNIQUE ("uid"), CONSTRAINT "PK_8605459aed9e4d0cf4aafbf008d" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "provisioner_jobs" ADD "worker_key_id" uuid`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "provisioner_jobs" DROP COLUMN "worker_key_id"`);
    await queryRunner.query(`DROP TABLE "workspace_os_identities"`);
  }
}
