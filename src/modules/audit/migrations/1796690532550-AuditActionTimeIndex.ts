import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditActionTimeIndex1796690532550 implements MigrationInterface {
  name = 'AuditActionTimeIndex1796690532550';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_logs_action_time_id" ON "audit_logs"  ("action", "time", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_action_time_id"`);
  }
}
