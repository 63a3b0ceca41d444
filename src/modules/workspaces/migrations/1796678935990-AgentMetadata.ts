import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AgentMetadata1796678935990 implements MigrationInterface {
  name = 'AgentMetadata1796678935990';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_agents" ADD "metadata" jsonb NOT NULL DEFAULT '[]'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_agents" DROP COLUMN "metadata"`);
  }
}
