import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEED_TEMPLATES } from './seed-templates';

export class Notifications1795267785153 implements MigrationInterface {
  name = 'Notifications1795267785153';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "notification_templates" ("id" uuid NOT NULL, "name" text NOT NULL, "title_template" text NOT NULL, "body_template" text NOT NULL, "actions" jsonb NOT NULL DEFAULT '[]', "group" text, "method" character varying(16), "kind" character varying(16) NOT NULL DEFAULT 'system', "enabled_by_default" boolean NOT NULL DEFAULT true, "to_inbox" boolean NOT NULL DEFAULT true, "icon" text NOT NULL DEFAULT '', CONSTRAINT "UQ_4118447024198c4ac2203a8218b" UNIQUE ("name"), CONSTRAINT "CHK_notification_templates_kind" CHECK ("kind" IN ('system', 'custom')), CONSTRAINT "CHK_notification_templates_method" CHECK ("method" IS NULL OR "method" IN ('smtp', 'webhook', 'inbox')), CONSTRAINT "PK_76f0fc48b8d057d2ae7f3a2848a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "inbox_notifications" ("id" uuid NOT NULL, "user_id" bigint NOT NULL, "template_id" uuid NOT NULL, "targets" uuid array NOT NULL DEFAULT '{}', "title" text NOT NULL, "content" text NOT NULL, "icon" text NOT NULL DEFAULT '', "actions" jsonb NOT NULL DEFAULT '[]', "read_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4be13fe6bbda895aea731fd8390" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_inbox_notifications_user_unread" ON "inbox_notifications"  ("user_id") WHERE "read_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_inbox_notifications_user_created" ON "inbox_notifications"  ("user_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "notification_messages" ("id" uuid NOT NULL, "template_id" uuid NOT NULL, "user_id" bigint NOT NULL, "method" character varying(16) NOT NULL, "status" character varying(20) NOT NULL DEFAULT 'pending', "status_reason" text, "created_by" text NOT NULL, "payload" jsonb NOT NULL, "attempt_count" integer NOT NULL DEFAULT '0', "targets" uuid array NOT NULL DEFAULT '{}', "dedupe_hash" character(32) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "leased_until" TIMESTAMP WITH TIME ZONE, "leased_by" uuid, "next_retry_after" TIMESTAMP WITH TIME ZONE, "queued_seconds" double precision, CONSTRAINT "UQ_9ac1ee8150500efcae8d042b6eb" UNIQUE ("dedupe_hash"), CONSTRAINT "CHK_notification_messages_method" CHECK ("method" IN ('smtp', 'webhook', 'inbox')), CONSTRAINT "CHK_notification_messages_status" CHECK ("status" IN ('pending', 'leased', 'sent', 'permanent_failure', 'temporary_failure', 'unknown', 'inhibited')), CONSTRAINT "PK_025a03ac35a495f0a6d8730350d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_notification_messages_user" ON "notification_messages"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_notification_messages_updated" ON "notification_messages"  ("updated_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_notification_messages_dispatch" ON "notification_messages"  ("created_at") WHERE "status" IN ('pending', 'temporary_failure', 'leased')`,
    );
    await queryRunner.query(
      `CREATE TABLE "notification_preferences" ("user_id" bigint NOT NULL, "template_id" uuid NOT NULL, "disabled" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e6cc123e6ff897b01535712376b" PRIMARY KEY ("user_id", "template_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "inbox_notifications" ADD CONSTRAINT "FK_1e585de8fc606a8ff83c11bbd37" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "inbox_notifications" ADD CONSTRAINT "FK_11db20a5b3ea66a3f174fda468d" FOREIGN KEY ("template_id") REFERENCES "notification_templates"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_messages" ADD CONSTRAINT "FK_d7a097945f58a2662246e78847d" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_messages" ADD CONSTRAINT "FK_4c1a234ac93b277968124b26130" FOREIGN KEY ("template_id") REFERENCES "notification_templates"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" ADD CONSTRAINT "FK_64c90edc7310c6be7c10c96f675" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" ADD CONSTRAINT "FK_5957de8d8a079f746300973d1d7" FOREIGN KEY ("template_id") REFERENCES "notification_templates"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Seed: the system templates with their stable ids.
    for (const t of SEED_TEMPLATES) {
      await queryRunner.query(
        `INSERT INTO "notification_templates" ("id", "name", "title_template", "body_template", "actions", "group", "method", "kind", "enabled_by_default", "to_inbox") VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, true, $9)`,
        [t.id, t.name, t.title, t.body, JSON.stringify(t.actions), t.group, t.method, t.kind, t.toInbox],
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" DROP CONSTRAINT "FK_5957de8d8a079f746300973d1d7"`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" DROP CONSTRAINT "FK_64c90edc7310c6be7c10c96f675"`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_messages" DROP CONSTRAINT "FK_4c1a234ac93b277968124b26130"`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_messages" DROP CONSTRAINT "FK_d7a097945f58a2662246e78847d"`,
    );
    await queryRunner.query(
      `ALTER TABLE "inbox_notifications" DROP CONSTRAINT "FK_11db20a5b3ea66a3f174fda468d"`,
    );
    await queryRunner.query(
      `ALTER TABLE "inbox_notifications" DROP CONSTRAINT "FK_1e585de8fc606a8ff83c11bbd37"`,
    );
    await queryRunner.query(`DROP TABLE "notification_preferences"`);
    await queryRunner.query(`DROP INDEX "IDX_notification_messages_dispatch"`);
    await queryRunner.query(`DROP INDEX "IDX_notification_messages_updated"`);
    await queryRunner.query(`DROP INDEX "IDX_notification_messages_user"`);
    await queryRunner.query(`DROP TABLE "notification_messages"`);
    await queryRunner.query(`DROP INDEX "IDX_inbox_notifications_user_created"`);
    await queryRunner.query(`DROP INDEX "IDX_inbox_notifications_user_unread"`);
    await queryRunner.query(`DROP TABLE "inbox_notifications"`);
    await queryRunner.query(`DROP TABLE "notification_templates"`);
  }
}
