import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TeamUnits1795475321430 implements MigrationInterface {
  name = 'TeamUnits1795475321430';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "teams" ADD "units" text array NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "teams" DROP COLUMN "units"`);
  }
}
