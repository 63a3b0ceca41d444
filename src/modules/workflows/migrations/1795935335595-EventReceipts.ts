import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventReceipts1795935335595 implements MigrationInterface {
  name = 'EventReceipts1795935335595';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workflow_event_receipts" ("key" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e04d902b85400012b03a88569d3" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_workflow_event_receipts_created_at" ON "workflow_event_receipts"  ("created_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_workflow_event_receipts_created_at"`);
    await queryRunner.query(`DROP TABLE "workflow_event_receipts"`);
  }
}
