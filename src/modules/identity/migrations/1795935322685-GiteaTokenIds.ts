import type { MigrationInterface, QueryRunner } from 'typeorm';

export class GiteaTokenIds1795935322685 implements MigrationInterface {
  name = 'GiteaTokenIds1795935322685';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_tokens" ADD "numeric_id" BIGSERIAL NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "UQ_4fbb8ed278d9d253bd6b1a919df" UNIQUE ("numeric_id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "UQ_4fbb8ed278d9d253bd6b1a919df"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP COLUMN "numeric_id"`);
  }
}
