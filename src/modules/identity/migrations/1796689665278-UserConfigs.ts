import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserConfigs1796689665278 implements MigrationInterface {
  name = 'UserConfigs1796689665278';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "user_configs" ("user_id" uuid NOT NULL, "key" character varying(64) NOT NULL, "value" text NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_af972db4bdbd147d3bec22deb77" PRIMARY KEY ("user_id", "key"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "user_configs"`);
  }
}
