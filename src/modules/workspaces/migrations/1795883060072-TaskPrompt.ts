import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskPrompt1795883060072 implements MigrationInterface {
  name = 'TaskPrompt1795883060072';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "task_prompt" text`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "task_display_name" character varying(128)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "task_display_name"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "task_prompt"`);
  }
}
