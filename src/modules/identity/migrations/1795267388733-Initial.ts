import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795267388733 implements MigrationInterface {
  name = 'Initial1795267388733';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "users" ("id" BIGSERIAL NOT NULL, "uuid" uuid NOT NULL DEFAULT gen_random_uuid(), "type" character varying(16) NOT NULL DEFAULT 'individual', "name" character varying(255) NOT NULL, "lower_name" character varying(255) NOT NULL, "email" character varying(254) NOT NULL DEFAULT '', "lower_email" character varying(254) NOT NULL DEFAULT '', "keep_email_private" boolean NOT NULL DEFAULT false, "full_name" character varying(255) NOT NULL DEFAULT '', "password_hash" character varying(255), "login_type" character varying(16) NOT NULL DEFAULT 'password', "login_name" character varying(255) NOT NULL DEFAULT '', "login_source" bigint NOT NULL DEFAULT '0', "status" character varying(16) NOT NULL DEFAULT 'active', "is_admin" boolean NOT NULL DEFAULT false, "is_super_admin" boolean NOT NULL DEFAULT false, "site_roles" text array NOT NULL DEFAULT '{}', "admin_granted_by" bigint, "has_bootstrap_grant" boolean NOT NULL DEFAULT false, "restricted" boolean NOT NULL DEFAULT false, "prohibit_login" boolean NOT NULL DEFAULT false, "must_change_password" boolean NOT NULL DEFAULT false, "visibility" character varying(16) NOT NULL DEFAULT 'public', "is_service_account" boolean NOT NULL DEFAULT false, "website" character varying(255) NOT NULL DEFAULT '', "location" character varying(255) NOT NULL DEFAULT '', "description" character varying(255) NOT NULL DEFAULT '', "avatar_url" character varying(2048) NOT NULL DEFAULT '', "language" character varying(16) NOT NULL DEFAULT '', "max_repo_creation" integer NOT NULL DEFAULT '-1', "allow_git_hook" boolean NOT NULL DEFAULT false, "allow_import_local" boolean NOT NULL DEFAULT false, "allow_create_organization" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen_at" TIMESTAMP WITH TIME ZONE, "last_login_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_951b8f1dfc94ac1d0301a14b7e1" UNIQUE ("uuid"), CONSTRAINT "UQ_c38effb33b869a0c91e5fd4a8d4" UNIQUE ("lower_name"), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_users_type_id" ON "users"  ("type", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_users_lower_email" ON "users"  ("lower_email") WHERE "lower_email" <> ''`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_tokens" ("id" character varying(10) NOT NULL, "hashed_secret" bytea NOT NULL, "user_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "scopes" text array NOT NULL DEFAULT '{all}', "login_type" character varying(16) NOT NULL DEFAULT 'token', "lifetime_seconds" bigint NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "ip_address" character varying(64) NOT NULL DEFAULT '', "password_confirmed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c587455266b5fa8dace7194caac" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_api_tokens_user_name" ON "api_tokens"  ("user_id", "name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "organizations" ("account_id" bigint NOT NULL, "display_name" character varying(255) NOT NULL DEFAULT '', "icon" character varying(2048) NOT NULL DEFAULT '', "is_default" boolean NOT NULL DEFAULT false, "workspace_sharing_mode" character varying(32) NOT NULL DEFAULT 'everyone', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8fbacb4d305983454c21ba7ff18" PRIMARY KEY ("account_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "organization_members" ("organization_id" bigint NOT NULL, "user_id" bigint NOT NULL, "roles" text array NOT NULL DEFAULT '{}', "is_owner" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f4812f00736e35131a65d6032da" PRIMARY KEY ("organization_id", "user_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_members_user" ON "organization_members"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "teams" ("id" BIGSERIAL NOT NULL, "organization_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "lower_name" character varying(255) NOT NULL, "description" character varying(255) NOT NULL DEFAULT '', "permission" character varying(16) NOT NULL DEFAULT 'read', "includes_all_repositories" boolean NOT NULL DEFAULT false, "can_create_org_repo" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7e5523774a38b08a6236d322403" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_teams_org_lower_name" ON "teams"  ("organization_id", "lower_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "team_members" ("team_id" bigint NOT NULL, "user_id" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1d3c06a8217a8785e2af0ec4ab8" PRIMARY KEY ("team_id", "user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_team_members_user" ON "team_members"  ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "site_configs" ("key" character varying(128) NOT NULL, "value" text NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c39339e5755aa4f4f07625005f" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "FK_b74883f5884a42fd8496d389b25" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "organizations" ADD CONSTRAINT "FK_8fbacb4d305983454c21ba7ff18" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "organization_members" ADD CONSTRAINT "FK_7062a4fbd9bab22ffd918e5d3d9" FOREIGN KEY ("organization_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "organization_members" ADD CONSTRAINT "FK_89bde91f78d36ca41e9515d91c6" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "teams" ADD CONSTRAINT "FK_fdc736f761896ccc179c823a785" FOREIGN KEY ("organization_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" ADD CONSTRAINT "FK_fdad7d5768277e60c40e01cdcea" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" ADD CONSTRAINT "FK_c2bf4967c8c2a6b845dadfbf3d4" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Seed: Coder's default organization (every user joins it) and this deployment's id.
    await queryRunner.query(
      `INSERT INTO "users" ("type", "name", "lower_name", "full_name", "login_type") VALUES ('organization', 'default', 'default', 'Default', 'none')`,
    );
    await queryRunner.query(
      `INSERT INTO "organizations" ("account_id", "display_name", "is_default") SELECT "id", 'Default', true FROM "users" WHERE "lower_name" = 'default'`,
    );
    await queryRunner.query(
      `INSERT INTO "site_configs" ("key", "value") VALUES ('deployment_id', gen_random_uuid()::text)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "team_members" DROP CONSTRAINT "FK_c2bf4967c8c2a6b845dadfbf3d4"`);
    await queryRunner.query(`ALTER TABLE "team_members" DROP CONSTRAINT "FK_fdad7d5768277e60c40e01cdcea"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP CONSTRAINT "FK_fdc736f761896ccc179c823a785"`);
    await queryRunner.query(
      `ALTER TABLE "organization_members" DROP CONSTRAINT "FK_89bde91f78d36ca41e9515d91c6"`,
    );
    await queryRunner.query(
      `ALTER TABLE "organization_members" DROP CONSTRAINT "FK_7062a4fbd9bab22ffd918e5d3d9"`,
    );
    await queryRunner.query(`ALTER TABLE "organizations" DROP CONSTRAINT "FK_8fbacb4d305983454c21ba7ff18"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "FK_b74883f5884a42fd8496d389b25"`);
    await queryRunner.query(`DROP TABLE "site_configs"`);
    await queryRunner.query(`DROP INDEX "IDX_team_members_user"`);
    await queryRunner.query(`DROP TABLE "team_members"`);
    await queryRunner.query(`DROP INDEX "IDX_teams_org_lower_name"`);
    await queryRunner.query(`DROP TABLE "teams"`);
    await queryRunner.query(`DROP INDEX "IDX_organization_members_user"`);
    await queryRunner.query(`DROP TABLE "organization_members"`);
    await queryRunner.query(`DROP TABLE "organizations"`);
    await queryRunner.query(`DROP INDEX "IDX_api_tokens_user_name"`);
    await queryRunner.query(`DROP TABLE "api_tokens"`);
    await queryRunner.query(`DROP INDEX "IDX_users_lower_email"`);
    await queryRunner.query(`DROP INDEX "IDX_users_type_id"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
