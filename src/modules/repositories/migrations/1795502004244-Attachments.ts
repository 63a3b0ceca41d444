import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Attachments1795502004244 implements MigrationInterface {
  name = 'Attachments1795502004244';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "attachments" ("id" BIGSERIAL NOT NULL, "uuid" uuid NOT NULL, "repository_id" bigint NOT NULL, "issue_id" bigint, "comment_id" bigint, "release_id" bigint, "uploader_id" bigint, "name" character varying(255) NOT NULL, "size" bigint NOT NULL, "mime_type" character varying(255) NOT NULL, "sha256" character varying(64) NOT NULL, "download_count" bigint NOT NULL DEFAULT '0', "blob_key" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5e1f050bcff31e3084a1d662412" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_attachments_repository" ON "attachments"  ("repository_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_attachments_comment" ON "attachments"  ("comment_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_attachments_issue" ON "attachments"  ("issue_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_attachments_release" ON "attachments"  ("release_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_attachments_uuid" ON "attachments"  ("uuid") `);
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "FK_654b450d6c3d0209b644fb2a8e5" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "FK_dd7c238245012c896f736aa9bbf" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "FK_b4b436948b623e8e765bd1c0977" FOREIGN KEY ("comment_id") REFERENCES "issue_comments"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "FK_c2d8fe7ff1cd1b32ff7e482910a" FOREIGN KEY ("release_id") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "FK_73407cf2d2a0e64546bacf309a7" FOREIGN KEY ("uploader_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "FK_73407cf2d2a0e64546bacf309a7"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "FK_c2d8fe7ff1cd1b32ff7e482910a"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "FK_b4b436948b623e8e765bd1c0977"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "FK_dd7c238245012c896f736aa9bbf"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "FK_654b450d6c3d0209b644fb2a8e5"`);
    await queryRunner.query(`DROP INDEX "IDX_attachments_uuid"`);
    await queryRunner.query(`DROP INDEX "IDX_attachments_release"`);
    await queryRunner.query(`DROP INDEX "IDX_attachments_issue"`);
    await queryRunner.query(`DROP INDEX "IDX_attachments_comment"`);
    await queryRunner.query(`DROP INDEX "IDX_attachments_repository"`);
    await queryRunner.query(`DROP TABLE "attachments"`);
  }
}
