import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Workspaces1795750043624 implements MigrationInterface {
  name = 'Workspaces1795750043624';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "connection_logs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "connect_time" TIMESTAMP WITH TIME ZONE NOT NULL, "organization_id" uuid NOT NULL, "workspace_owner_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "workspace_name" character varying(64) NOT NULL, "agent_id" uuid NOT NULL, "agent_name" character varying(64) NOT NULL, "type" character varying(32) NOT NULL, "ip" character varying(64), "connection_id" uuid NOT NULL, "slug_or_port" character varying(128), "user_agent" character varying(512), "user_id" uuid, "code" integer, "disconnect_time" TIMESTAMP WITH TIME ZONE, "disconnect_reason" character varying(512), CONSTRAINT "PK_0e3d7dd9c52ff23f857405e99c0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "connection_logs_agent_connection" ON "connection_logs"  ("agent_id", "connection_id") `,
    );
    await queryRunner.query(`CREATE INDEX "connection_logs_time" ON "connection_logs"  ("connect_time") `);
    await queryRunner.query(
      `CREATE TABLE "provisioner_jobs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "organization_id" uuid NOT NULL, "type" character varying(32) NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "input" jsonb NOT NULL, "initiator_id" uuid NOT NULL, "tags" jsonb NOT NULL DEFAULT '{}', "worker_id" character varying(64), "worker_name" character varying(128), "leased_until" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', "error" text, "error_code" character varying(64), "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "canceled_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_017e2a27567de78da209fa26004" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "provisioner_jobs_queue" ON "provisioner_jobs"  ("organization_id", "created_at") WHERE status IN ('pending', 'running')`,
    );
    await queryRunner.query(
      `CREATE TABLE "provisioner_job_logs" ("id" BIGSERIAL NOT NULL, "job_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "log_source" character varying(16) NOT NULL DEFAULT 'provisioner', "log_level" character varying(8) NOT NULL DEFAULT 'info', "stage" character varying(128) NOT NULL DEFAULT '', "output" text NOT NULL, CONSTRAINT "PK_023136e000c42633289db1d710c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "provisioner_job_logs_job" ON "provisioner_job_logs"  ("job_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "provisioner_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "organization_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "lower_name" character varying(64) NOT NULL, "hashed_secret" character(64) NOT NULL, "tags" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4cf2bd3e7612f882356409b9058" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "provisioner_keys_hash" ON "provisioner_keys"  ("hashed_secret") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "provisioner_keys_org_name" ON "provisioner_keys"  ("organization_id", "lower_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "templates" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "organization_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "lower_name" character varying(64) NOT NULL, "display_name" character varying(64) NOT NULL DEFAULT '', "description" character varying(128) NOT NULL DEFAULT '', "icon" character varying(256) NOT NULL DEFAULT '', "active_version_id" uuid NOT NULL, "created_by" uuid NOT NULL, "deleted" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_515948649ce0bbbe391de702ae5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "templates_org_name" ON "templates"  ("organization_id", "lower_name") WHERE deleted = false`,
    );
    await queryRunner.query(
      `CREATE TABLE "template_versions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "template_id" uuid, "organization_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "message" character varying(1048) NOT NULL DEFAULT '', "provisioner" character varying(32) NOT NULL DEFAULT 'devplane', "definition" jsonb NOT NULL, "job_id" uuid NOT NULL, "created_by" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cfc439255ca2725f4102c554d41" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "template_versions_template" ON "template_versions"  ("template_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "template_version_presets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "template_version_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "parameters" jsonb NOT NULL DEFAULT '{}', "desired_instances" integer, "is_default" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_169dad7daa06cfaefc6463fb37d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "template_version_presets_version_name" ON "template_version_presets"  ("template_version_id", "name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "owner_id" uuid NOT NULL, "organization_id" uuid NOT NULL, "template_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "lower_name" character varying(64) NOT NULL, "user_acl" jsonb NOT NULL DEFAULT '{}', "group_acl" jsonb NOT NULL DEFAULT '{}', "deleted" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "workspaces_owner" ON "workspaces"  ("owner_id") `);
    await queryRunner.query(`CREATE INDEX "workspaces_template" ON "workspaces"  ("template_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "workspaces_owner_name" ON "workspaces"  ("owner_id", "lower_name") WHERE deleted = false`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_agents" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "resource_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(64) NOT NULL DEFAULT 'main', "token_hash" character(64) NOT NULL, "sealed_token" text NOT NULL, "directory" character varying(4096) NOT NULL DEFAULT '', "environment_variables" jsonb NOT NULL DEFAULT '{}', "apps" jsonb NOT NULL DEFAULT '[]', "startup_script" text NOT NULL DEFAULT '', "vnc_command" text NOT NULL DEFAULT '', "lifecycle_state" character varying(32) NOT NULL DEFAULT 'created', "version" character varying(64) NOT NULL DEFAULT '', "operating_system" character varying(32) NOT NULL DEFAULT '', "architecture" character varying(32) NOT NULL DEFAULT '', "initialized_owner_id" uuid, "first_connected_at" TIMESTAMP WITH TIME ZONE, "last_connected_at" TIMESTAMP WITH TIME ZONE, "disconnected_at" TIMESTAMP WITH TIME ZONE, "started_at" TIMESTAMP WITH TIME ZONE, "ready_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0bddf66afbc413375195103ef27" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "workspace_agents_resource" ON "workspace_agents"  ("resource_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "workspace_agents_workspace" ON "workspace_agents"  ("workspace_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "workspace_agents_token" ON "workspace_agents"  ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_builds" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "template_version_id" uuid NOT NULL, "template_version_preset_id" uuid, "build_number" integer NOT NULL, "transition" character varying(16) NOT NULL, "reason" character varying(32) NOT NULL DEFAULT 'initiator', "initiator_id" uuid NOT NULL, "job_id" uuid NOT NULL, "has_ai_task" boolean NOT NULL DEFAULT false, "is_claim" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3882c898124b06607cf1a6272b7" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "workspace_builds_job" ON "workspace_builds"  ("job_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "workspace_builds_workspace_number" ON "workspace_builds"  ("workspace_id", "build_number") `,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_resources" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "job_id" uuid NOT NULL, "transition" character varying(16) NOT NULL, "type" character varying(64) NOT NULL, "name" character varying(64) NOT NULL, "icon" character varying(256) NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8e6dbb39e5355d402fc41720d9a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "workspace_resources_job" ON "workspace_resources"  ("job_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "workspace_resources_job"`);
    await queryRunner.query(`DROP TABLE "workspace_resources"`);
    await queryRunner.query(`DROP INDEX "workspace_builds_workspace_number"`);
    await queryRunner.query(`DROP INDEX "workspace_builds_job"`);
    await queryRunner.query(`DROP TABLE "workspace_builds"`);
    await queryRunner.query(`DROP INDEX "workspace_agents_token"`);
    await queryRunner.query(`DROP INDEX "workspace_agents_workspace"`);
    await queryRunner.query(`DROP INDEX "workspace_agents_resource"`);
    await queryRunner.query(`DROP TABLE "workspace_agents"`);
    await queryRunner.query(`DROP INDEX "workspaces_owner_name"`);
    await queryRunner.query(`DROP INDEX "workspaces_template"`);
    await queryRunner.query(`DROP INDEX "workspaces_owner"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
    await queryRunner.query(`DROP INDEX "template_version_presets_version_name"`);
    await queryRunner.query(`DROP TABLE "template_version_presets"`);
    await queryRunner.query(`DROP INDEX "template_versions_template"`);
    await queryRunner.query(`DROP TABLE "template_versions"`);
    await queryRunner.query(`DROP INDEX "templates_org_name"`);
    await queryRunner.query(`DROP TABLE "templates"`);
    await queryRunner.query(`DROP INDEX "provisioner_keys_org_name"`);
    await queryRunner.query(`DROP INDEX "provisioner_keys_hash"`);
    await queryRunner.query(`DROP TABLE "provisioner_keys"`);
    await queryRunner.query(`DROP INDEX "provisioner_job_logs_job"`);
    await queryRunner.query(`DROP TABLE "provisioner_job_logs"`);
    await queryRunner.query(`DROP INDEX "provisioner_jobs_queue"`);
    await queryRunner.query(`DROP TABLE "provisioner_jobs"`);
    await queryRunner.query(`DROP INDEX "connection_logs_time"`);
    await queryRunner.query(`DROP INDEX "connection_logs_agent_connection"`);
    await queryRunner.query(`DROP TABLE "connection_logs"`);
  }
}
