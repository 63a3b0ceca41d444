import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PublicKeysAndGrantTombstones1795267759783 implements MigrationInterface {
  name = 'PublicKeysAndGrantTombstones1795267759783';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "admin_grant_tombstones" ("user_id" bigint NOT NULL, "admin_granted_by" bigint, "username" character varying(255) NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_887604b1295c71f3e89309431e0" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "public_keys" ("id" BIGSERIAL NOT NULL, "owner_id" bigint NOT NULL, "title" character varying(255) NOT NULL, "content" text NOT NULL, "fingerprint" character varying(255) NOT NULL, "algorithm" character varying(32) NOT NULL, "key_size" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_35191e079da7902972477d26c77" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_public_keys_owner_title" ON "public_keys"  ("owner_id", "title") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_public_keys_fingerprint" ON "public_keys"  ("fingerprint") `,
    );
    await queryRunner.query(
      `ALTER TABLE "public_keys" ADD CONSTRAINT "FK_23388a39d80400ef682eaf15305" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "public_keys" DROP CONSTRAINT "FK_23388a39d80400ef682eaf15305"`);
    await queryRunner.query(`DROP INDEX "IDX_public_keys_fingerprint"`);
    await queryRunner.query(`DROP INDEX "IDX_public_keys_owner_title"`);
    await queryRunner.query(`DROP TABLE "public_keys"`);
    await queryRunner.query(`DROP TABLE "admin_grant_tombstones"`);
  }
}
