import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Chats1795753408375 implements MigrationInterface {
  name = 'Chats1795753408375';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "chats" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "organization_id" uuid NOT NULL, "owner_id" uuid NOT NULL, "workspace_id" uuid, "parent_chat_id" uuid, "root_chat_id" uuid, "last_model_config_id" uuid NOT NULL, "title" character varying(200) NOT NULL DEFAULT '', "status" character varying(16) NOT NULL DEFAULT 'waiting', "archived" boolean NOT NULL DEFAULT false, "archived_at" TIMESTAMP WITH TIME ZONE, "pin_order" integer NOT NULL DEFAULT '0', "labels" jsonb NOT NULL DEFAULT '{}', "client_type" character varying(8) NOT NULL DEFAULT 'api', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0117647b3c4a4e5ff198aeb6206" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "chats_parent" ON "chats"  ("parent_chat_id") `);
    await queryRunner.query(`CREATE INDEX "chats_root" ON "chats"  ("root_chat_id") `);
    await queryRunner.query(`CREATE INDEX "chats_owner_updated" ON "chats"  ("owner_id", "updated_at") `);
    await queryRunner.query(
      `CREATE TABLE "chat_files" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "organization_id" uuid NOT NULL, "owner_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "mime_type" character varying(64) NOT NULL, "size_bytes" bigint NOT NULL, "sha256" character(64) NOT NULL, "chat_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ccac170cfa6fc37488e93e5787a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "chat_files_chat" ON "chat_files"  ("chat_id") `);
    await queryRunner.query(`CREATE INDEX "chat_files_owner" ON "chat_files"  ("owner_id", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "chat_messages" ("id" BIGSERIAL NOT NULL, "chat_id" uuid NOT NULL, "role" character varying(16) NOT NULL, "content" jsonb NOT NULL, "model_config_id" uuid, "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "reasoning_tokens" bigint NOT NULL DEFAULT '0', "cache_read_tokens" bigint NOT NULL DEFAULT '0', "cache_write_tokens" bigint NOT NULL DEFAULT '0', "total_cost_micros" bigint, "runtime_ms" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_40c55ee0e571e268b0d3cd37d10" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "chat_messages_chat" ON "chat_messages"  ("chat_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "chat_model_configs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "provider" character varying(63) NOT NULL, "model" character varying(255) NOT NULL, "display_name" character varying(255) NOT NULL, "input_price_micros" bigint, "output_price_micros" bigint, "cache_read_price_micros" bigint, "cache_write_price_micros" bigint, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e9fe65eae879e5c6a1fbb6cd87" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat_model_configs"`);
    await queryRunner.query(`DROP INDEX "chat_messages_chat"`);
    await queryRunner.query(`DROP TABLE "chat_messages"`);
    await queryRunner.query(`DROP INDEX "chat_files_owner"`);
    await queryRunner.query(`DROP INDEX "chat_files_chat"`);
    await queryRunner.query(`DROP TABLE "chat_files"`);
    await queryRunner.query(`DROP INDEX "chats_owner_updated"`);
    await queryRunner.query(`DROP INDEX "chats_root"`);
    await queryRunner.query(`DROP INDEX "chats_parent"`);
    await queryRunner.query(`DROP TABLE "chats"`);
  }
}
