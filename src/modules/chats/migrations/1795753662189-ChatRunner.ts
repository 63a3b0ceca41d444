import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ChatRunner1795753662189 implements MigrationInterface {
  name = 'ChatRunner1795753662189';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chats" ADD "runner_id" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "chats" ADD "leased_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "chats" ADD "last_error" text`);
    await queryRunner.query(
      `CREATE INDEX "chats_pending" ON "chats"  ("updated_at") WHERE status = 'pending'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "chats_pending"`);
    await queryRunner.query(`ALTER TABLE "chats" DROP COLUMN "last_error"`);
    await queryRunner.query(`ALTER TABLE "chats" DROP COLUMN "leased_until"`);
    await queryRunner.query(`ALTER TABLE "chats" DROP COLUMN "runner_id"`);
  }
}
