import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Packages1795731328088 implements MigrationInterface {
  name = 'Packages1795731328088';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "package_blobs" ("id" BIGSERIAL NOT NULL, "size" bigint NOT NULL, "md5" character varying(32) NOT NULL, "sha1" character varying(40) NOT NULL, "sha256" character varying(64) NOT NULL, "sha512" character varying(128) NOT NULL, "blob_key" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a9b5edcf238aea3c59ee3f4f29b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_package_blobs_sha512" ON "package_blobs"  ("sha512") `);
    await queryRunner.query(
      `CREATE TABLE "packages" ("id" BIGSERIAL NOT NULL, "owner_id" bigint NOT NULL, "type" character varying(16) NOT NULL, "name" character varying(255) NOT NULL, "lower_name" character varying(255) NOT NULL, "semver_compatible" boolean NOT NULL DEFAULT false, "is_internal" boolean NOT NULL DEFAULT false, "repository_id" bigint, "dist_tags" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_020801f620e21f943ead9311c98" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_packages_owner_type_name" ON "packages"  ("owner_id", "type", "lower_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "package_versions" ("id" BIGSERIAL NOT NULL, "package_id" bigint NOT NULL, "creator_id" bigint, "version" character varying(255) NOT NULL, "lower_version" character varying(255) NOT NULL, "is_internal" boolean NOT NULL DEFAULT false, "metadata" jsonb NOT NULL DEFAULT '{}', "download_count" bigint NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_137db4545a8d91e9100ef820d67" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_package_versions_package_version" ON "package_versions"  ("package_id", "lower_version") `,
    );
    await queryRunner.query(
      `CREATE TABLE "package_files" ("id" BIGSERIAL NOT NULL, "version_id" bigint NOT NULL, "blob_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "lower_name" character varying(255) NOT NULL, "is_lead" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b0d62913846d86bc0b183a31110" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_package_files_blob" ON "package_files"  ("blob_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_package_files_version_name" ON "package_files"  ("version_id", "lower_name") `,
    );
    await queryRunner.query(
      `ALTER TABLE "packages" ADD CONSTRAINT "FK_d42766aa54d600912005b1d7469" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "package_versions" ADD CONSTRAINT "FK_d3e4c428e901279a7cc802415c7" FOREIGN KEY ("package_id") REFERENCES "packages"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "package_versions" ADD CONSTRAINT "FK_14211915e6c8d0918ecac2be1bd" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "package_files" ADD CONSTRAINT "FK_b84a7db372e745102e204a332cb" FOREIGN KEY ("version_id") REFERENCES "package_versions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "package_files" ADD CONSTRAINT "FK_687737c8dcaa45f6368328167bb" FOREIGN KEY ("blob_id") REFERENCES "package_blobs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "package_files" DROP CONSTRAINT "FK_687737c8dcaa45f6368328167bb"`);
    await queryRunner.query(`ALTER TABLE "package_files" DROP CONSTRAINT "FK_b84a7db372e745102e204a332cb"`);
    await queryRunner.query(
      `ALTER TABLE "package_versions" DROP CONSTRAINT "FK_14211915e6c8d0918ecac2be1bd"`,
    );
    await queryRunner.query(
      `ALTER TABLE "package_versions" DROP CONSTRAINT "FK_d3e4c428e901279a7cc802415c7"`,
    );
    await queryRunner.query(`ALTER TABLE "packages" DROP CONSTRAINT "FK_d42766aa54d600912005b1d7469"`);
    await queryRunner.query(`DROP INDEX "IDX_package_files_version_name"`);
    await queryRunner.query(`DROP INDEX "IDX_package_files_blob"`);
    await queryRunner.query(`DROP TABLE "package_files"`);
    await queryRunner.query(`DROP INDEX "IDX_package_versions_package_version"`);
    await queryRunner.query(`DROP TABLE "package_versions"`);
    await queryRunner.query(`DROP INDEX "IDX_packages_owner_type_name"`);
    await queryRunner.query(`DROP TABLE "packages"`);
    await queryRunner.query(`DROP INDEX "IDX_package_blobs_sha512"`);
    await queryRunner.query(`DROP TABLE "package_blobs"`);
  }
}
