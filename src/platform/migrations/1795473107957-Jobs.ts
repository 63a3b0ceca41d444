import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Jobs1795473107957 implements MigrationInterface {
  name = 'Jobs1795473107957';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "jobs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "type" character varying(100) NOT NULL, "payload" jsonb NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "max_attempts" integer NOT NULL, "run_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "leased_by" character varying(64), "leased_until" TIMESTAMP WITH TIME ZONE, "dedupe_key" character varying(200), "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "CHK_jobs_status" CHECK ("status" IN ('pending', 'running', 'succeeded', 'failed')), CONSTRAINT "PK_cf0a6c42b72fcc7f7c237def345" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_jobs_dedupe" ON "jobs"  ("type", "dedupe_key") WHERE "dedupe_key" IS NOT NULL AND "status" IN ('pending', 'running')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_jobs_finished" ON "jobs"  ("finished_at") WHERE "status" IN ('succeeded', 'failed')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_jobs_due" ON "jobs"  ("run_at") WHERE "status" IN ('pending', 'running')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_jobs_due"`);
    await queryRunner.query(`DROP INDEX "IDX_jobs_finished"`);
    await queryRunner.query(`DROP INDEX "UQ_jobs_dedupe"`);
    await queryRunner.query(`DROP TABLE "jobs"`);
  }
}
