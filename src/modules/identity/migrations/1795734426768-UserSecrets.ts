import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserSecrets1795734426768 implements MigrationInterface {
  name = 'UserSecrets1795734426768';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "user_secrets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "sealed_value" text NOT NULL, "value_bytes" integer NOT NULL, "env_name" character varying(256) NOT NULL DEFAULT '', "file_path" character varying(4096) NOT NULL DEFAULT '', "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_215249fa12819f0ac12e21e51fe" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_user_secrets_user_file_path" ON "user_secrets"  ("user_id", "file_path") WHERE "file_path" <> ''`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_user_secrets_user_env_name" ON "user_secrets"  ("user_id", "env_name") WHERE "env_name" <> ''`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_user_secrets_user_name" ON "user_secrets"  ("user_id", "name") `,
    );
    await queryRunner.query(
      `ALTER TABLE "user_secrets" ADD CONSTRAINT "FK_c584286beb5ef2c823312479b4f" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "user_secrets" DROP CONSTRAINT "FK_c584286beb5ef2c823312479b4f"`);
    await queryRunner.query(`DROP INDEX "IDX_user_secrets_user_name"`);
    await queryRunner.query(`DROP INDEX "IDX_user_secrets_user_env_name"`);
    await queryRunner.query(`DROP INDEX "IDX_user_secrets_user_file_path"`);
    await queryRunner.query(`DROP TABLE "user_secrets"`);
  }
}
