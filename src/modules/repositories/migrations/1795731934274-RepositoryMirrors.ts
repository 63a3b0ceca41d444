import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RepositoryMirrors1795731934274 implements MigrationInterface {
  name = 'RepositoryMirrors1795731934274';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "repository_mirrors" ("repository_id" bigint NOT NULL, "remote_url" character varying(2048) NOT NULL, "sealed_authorization" text, "interval_seconds" integer NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE, "next_sync_at" TIMESTAMP WITH TIME ZONE, "last_error" text NOT NULL DEFAULT '', CONSTRAINT "PK_b55076943525ec63d9bcac83833" PRIMARY KEY ("repository_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_mirrors" ADD CONSTRAINT "FK_b55076943525ec63d9bcac83833" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "repository_mirrors" DROP CONSTRAINT "FK_b55076943525ec63d9bcac83833"`,
    );
    await queryRunner.query(`DROP TABLE "repository_mirrors"`);
  }
}
