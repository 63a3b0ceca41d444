import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1796690175951 implements MigrationInterface {
  name = 'Webhooks1796690175951';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhooks" ("id" BIGSERIAL NOT NULL, "repository_id" bigint, "owner_id" bigint, "type" character varying(32) NOT NULL DEFAULT 'gitea', "url" text NOT NULL, "content_type" character varying(8) NOT NULL DEFAULT 'json', "secret_sealed" text NOT NULL DEFAULT '', "authorization_sealed" text NOT NULL DEFAULT '', "events" jsonb NOT NULL DEFAULT '[]', "branch_filter" text NOT NULL DEFAULT '', "active" boolean NOT NULL DEFAULT false, "last_status" character varying(8) NOT NULL DEFAULT 'none', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_webhooks_owner" ON "webhooks"  ("owner_id", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_webhooks_repository" ON "webhooks"  ("repository_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" BIGSERIAL NOT NULL, "hook_id" bigint NOT NULL, "uuid" uuid NOT NULL, "event_key" text NOT NULL, "event_type" character varying(64) NOT NULL, "payload" text NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "response_status" integer, "response_body" text NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "delivered_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_webhook_deliveries_hook_key" ON "webhook_deliveries"  ("hook_id", "event_key") `,
    );
    await queryRunner.query(
      `ALTER TABLE "webhooks" ADD CONSTRAINT "FK_6831ff70a0e3d0789982bf19e3a" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhooks" ADD CONSTRAINT "FK_d1a90c63f6cb23ae3974aef05c1" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_86199244cd3e73eb5d123ca5d0f" FOREIGN KEY ("hook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_86199244cd3e73eb5d123ca5d0f"`,
    );
    await queryRunner.query(`ALTER TABLE "webhooks" DROP CONSTRAINT "FK_d1a90c63f6cb23ae3974aef05c1"`);
    await queryRunner.query(`ALTER TABLE "webhooks" DROP CONSTRAINT "FK_6831ff70a0e3d0789982bf19e3a"`);
    await queryRunner.query(`DROP INDEX "IDX_webhook_deliveries_hook_key"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "IDX_webhooks_repository"`);
    await queryRunner.query(`DROP INDEX "IDX_webhooks_owner"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}
