import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AiGateway1795741228277 implements MigrationInterface {
  name = 'AiGateway1795741228277';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ai_gateway_providers" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(63) NOT NULL, "type" character varying(16) NOT NULL, "base_url" character varying(2048) NOT NULL, "sealed_key" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_e50b2255a13084e436b3e40d9ad" UNIQUE ("name"), CONSTRAINT "PK_115dd52d12b95dd22e3e0ef6885" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_gateway_interceptions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "initiator_id" bigint NOT NULL, "api_key_id" character varying(16), "provider" character varying(16) NOT NULL, "provider_name" character varying(63) NOT NULL, "model" character varying(255) NOT NULL, "client" character varying(64), "client_session_id" character varying(256), "thread_root_id" uuid, "session_id" character varying(256) NOT NULL, "credential_kind" character varying(16) NOT NULL, "credential_hint" character varying(32) NOT NULL DEFAULT '', "metadata" jsonb NOT NULL DEFAULT '{}', "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "status_code" integer, "error_type" character varying(128), "error_message" text, CONSTRAINT "PK_1099521f4fbf146a4021cfc4f87" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_interceptions_initiator" ON "ai_gateway_interceptions"  ("initiator_id", "started_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_interceptions_session" ON "ai_gateway_interceptions"  ("session_id", "initiator_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_interceptions_started" ON "ai_gateway_interceptions"  ("started_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_gateway_token_usages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "interception_id" uuid NOT NULL, "provider_response_id" character varying(255) NOT NULL DEFAULT '', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "cache_read_input_tokens" bigint NOT NULL DEFAULT '0', "cache_write_input_tokens" bigint NOT NULL DEFAULT '0', "metadata" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_01f0ade09bc1117d0b81e857f7d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_token_usages_interception" ON "ai_gateway_token_usages"  ("interception_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_gateway_user_prompts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "interception_id" uuid NOT NULL, "provider_response_id" character varying(255) NOT NULL DEFAULT '', "prompt" text NOT NULL, "metadata" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a65c47c5ef9e4c1838af158bb54" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_user_prompts_interception" ON "ai_gateway_user_prompts"  ("interception_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_gateway_tool_usages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "interception_id" uuid NOT NULL, "provider_response_id" character varying(255) NOT NULL DEFAULT '', "tool_call_id" character varying(255) NOT NULL DEFAULT '', "server_url" character varying(2048) NOT NULL DEFAULT '', "tool" character varying(255) NOT NULL, "input" text NOT NULL DEFAULT '', "injected" boolean NOT NULL DEFAULT false, "invocation_error" text, "metadata" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_947cfe257257d635f7bc4fe59df" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_tool_usages_call" ON "ai_gateway_tool_usages"  ("tool_call_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_tool_usages_interception" ON "ai_gateway_tool_usages"  ("interception_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_seats" ("user_id" bigint NOT NULL, "first_used_at" TIMESTAMP WITH TIME ZONE NOT NULL, "reason" character varying(32) NOT NULL, CONSTRAINT "PK_627685b2c109a3bcb7b2028debe" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_token_usages" ADD CONSTRAINT "FK_6153de9b58b04fb74f768f0761d" FOREIGN KEY ("interception_id") REFERENCES "ai_gateway_interceptions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_user_prompts" ADD CONSTRAINT "FK_b176c5f258e12c8db42a0afcb50" FOREIGN KEY ("interception_id") REFERENCES "ai_gateway_interceptions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_tool_usages" ADD CONSTRAINT "FK_c00d1e88a030f143c54e2720ec3" FOREIGN KEY ("interception_id") REFERENCES "ai_gateway_interceptions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_tool_usages" DROP CONSTRAINT "FK_c00d1e88a030f143c54e2720ec3"`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_user_prompts" DROP CONSTRAINT "FK_b176c5f258e12c8db42a0afcb50"`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_gateway_token_usages" DROP CONSTRAINT "FK_6153de9b58b04fb74f768f0761d"`,
    );
    await queryRunner.query(`DROP TABLE "ai_seats"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_tool_usages_interception"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_tool_usages_call"`);
    await queryRunner.query(`DROP TABLE "ai_gateway_tool_usages"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_user_prompts_interception"`);
    await queryRunner.query(`DROP TABLE "ai_gateway_user_prompts"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_token_usages_interception"`);
    await queryRunner.query(`DROP TABLE "ai_gateway_token_usages"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_interceptions_started"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_interceptions_session"`);
    await queryRunner.query(`DROP INDEX "IDX_ai_interceptions_initiator"`);
    await queryRunner.query(`DROP TABLE "ai_gateway_interceptions"`);
    await queryRunner.query(`DROP TABLE "ai_gateway_providers"`);
  }
}
