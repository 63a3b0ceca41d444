import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ChatPullRequests1795759999918 implements MigrationInterface {
  name = 'ChatPullRequests1795759999918';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "chat_pull_requests" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "chat_id" uuid NOT NULL, "owner_id" uuid NOT NULL, "model_config_id" uuid, "issue_id" bigint NOT NULL, "repository_id" bigint NOT NULL, "number" integer NOT NULL, "title" character varying(255) NOT NULL, "html_url" text NOT NULL, "base_branch" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e7fa52ec79620f58baa037d3538" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "chat_pull_requests_issue" ON "chat_pull_requests"  ("issue_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "chat_pull_requests_created" ON "chat_pull_requests"  ("created_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "chat_pull_requests_created"`);
    await queryRunner.query(`DROP INDEX "chat_pull_requests_issue"`);
    await queryRunner.query(`DROP TABLE "chat_pull_requests"`);
  }
}
