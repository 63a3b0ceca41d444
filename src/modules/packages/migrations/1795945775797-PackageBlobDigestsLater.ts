import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Package blobs deduplicated by SHA-256 (unique) instead of SHA-512; md5, sha1 and sha512 are filled in
 * after the upload (packages.blob-digests). `down` needs every digest filled: let those jobs finish first.
 */
export class PackageBlobDigestsLater1795945775797 implements MigrationInterface {
  name = 'PackageBlobDigestsLater1795945775797';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_package_blobs_sha512"`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "md5" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "sha1" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "sha512" DROP NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_package_blobs_sha256" ON "package_blobs"  ("sha256") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_package_blobs_sha256"`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "sha512" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "sha1" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "package_blobs" ALTER COLUMN "md5" SET NOT NULL`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_package_blobs_sha512" ON "package_blobs" USING btree ("sha512") `,
    );
  }
}
