import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditLogs1795740721172 implements MigrationInterface {
  name = 'AuditLogs1795740721172';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_logs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "user_id" bigint, "organization_id" uuid, "ip" character varying(64), "user_agent" character varying(1024), "resource_type" character varying(64) NOT NULL, "resource_id" character varying(64) NOT NULL, "resource_target" character varying(512) NOT NULL, "action" character varying(32) NOT NULL, "diff" jsonb NOT NULL DEFAULT '{}', "status_code" integer NOT NULL DEFAULT '200', "additional_fields" jsonb NOT NULL DEFAULT '{}', "request_id" character varying(128), CONSTRAINT "PK_1bb179d048bbc581caa3b013439" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_audit_logs_resource_id" ON "audit_logs"  ("resource_id") `);
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_logs_org_time_id" ON "audit_logs"  ("organization_id", "time", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_logs_user_time_id" ON "audit_logs"  ("user_id", "time", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_logs_type_time_id" ON "audit_logs"  ("resource_type", "time", "id") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_audit_logs_time_id" ON "audit_logs"  ("time", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_time_id"`);
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_type_time_id"`);
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_user_time_id"`);
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_org_time_id"`);
    await queryRunner.query(`DROP INDEX "IDX_audit_logs_resource_id"`);
    await queryRunner.query(`DROP TABLE "audit_logs"`);
  }
}
