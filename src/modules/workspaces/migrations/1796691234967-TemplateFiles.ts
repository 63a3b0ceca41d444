import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TemplateFiles1796691234967 implements MigrationInterface {
  name = 'TemplateFiles1796691234967';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "template_files" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "hash" character varying(64) NOT NULL, "created_by" uuid NOT NULL, "mimetype" character varying(64) NOT NULL, "data" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1292ce4293603d6720f53252ddb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "template_files_hash_creator" ON "template_files"  ("hash", "created_by") `,
    );
    await queryRunner.query(
      `CREATE TABLE "template_version_files" ("template_version_id" uuid NOT NULL, "file_id" uuid NOT NULL, CONSTRAINT "PK_0a3feb849c264d09a8cb24cb833" PRIMARY KEY ("template_version_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "template_version_files_file" ON "template_version_files"  ("file_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "template_acl_entries" ("template_id" uuid NOT NULL, "subject_type" character varying(8) NOT NULL, "subject_id" uuid NOT NULL, "role" character varying(8) NOT NULL, CONSTRAINT "PK_d897e3de783bb97f0c914adadff" PRIMARY KEY ("template_id", "subject_type", "subject_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "template_acl_entries"`);
    await queryRunner.query(`DROP INDEX "template_version_files_file"`);
    await queryRunner.query(`DROP TABLE "template_version_files"`);
    await queryRunner.query(`DROP INDEX "template_files_hash_creator"`);
    await queryRunner.query(`DROP TABLE "template_files"`);
  }
}
