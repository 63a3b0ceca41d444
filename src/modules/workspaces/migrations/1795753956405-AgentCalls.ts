import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AgentCalls1795753956405 implements MigrationInterface {
  name = 'AgentCalls1795753956405';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_agent_calls" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "agent_id" uuid NOT NULL, "tool" character varying(32) NOT NULL, "arguments" jsonb NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "result" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c4a4dd1db113d150699e8f676a9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "workspace_agent_calls_pending" ON "workspace_agent_calls"  ("agent_id", "created_at") WHERE status = 'pending'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "workspace_agent_calls_pending"`);
    await queryRunner.query(`DROP TABLE "workspace_agent_calls"`);
  }
}
