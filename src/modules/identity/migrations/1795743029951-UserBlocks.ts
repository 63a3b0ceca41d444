import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserBlocks1795743029951 implements MigrationInterface {
  name = 'UserBlocks1795743029951';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "user_blocks" ("blocker_id" bigint NOT NULL, "blockee_id" bigint NOT NULL, "note" character varying(255) NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5b7aeb0a635326e99b7fd658199" PRIMARY KEY ("blocker_id", "blockee_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_user_blocks_blockee" ON "user_blocks"  ("blockee_id") `);
    await queryRunner.query(
      `ALTER TABLE "user_blocks" ADD CONSTRAINT "FK_dfcd8a81016d1de587fbd2d70bf" FOREIGN KEY ("blocker_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "user_blocks" ADD CONSTRAINT "FK_c46ead5a1381f0b59209950afd6" FOREIGN KEY ("blockee_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "user_blocks" DROP CONSTRAINT "FK_c46ead5a1381f0b59209950afd6"`);
    await queryRunner.query(`ALTER TABLE "user_blocks" DROP CONSTRAINT "FK_dfcd8a81016d1de587fbd2d70bf"`);
    await queryRunner.query(`DROP INDEX "IDX_user_blocks_blockee"`);
    await queryRunner.query(`DROP TABLE "user_blocks"`);
  }
}
