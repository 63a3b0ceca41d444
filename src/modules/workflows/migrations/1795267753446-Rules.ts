import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Rules1795267753446 implements MigrationInterface {
  name = 'Rules1795267753446';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "flow_checks" ("id" SERIAL NOT NULL, "class" character varying(256) NOT NULL, "operator" character varying(16) NOT NULL, "value" text NOT NULL, "hash" character(32) NOT NULL, CONSTRAINT "PK_fdae5d2af0805e57a4c9fec1e0e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_flow_checks_hash" ON "flow_checks"  ("hash") `);
    await queryRunner.query(
      `CREATE TABLE "flow_operations" ("id" SERIAL NOT NULL, "class" character varying(256) NOT NULL, "name" character varying(256) NOT NULL DEFAULT '', "checks" jsonb NOT NULL DEFAULT '[]', "operation" text NOT NULL DEFAULT '', "entity" character varying(256) NOT NULL, "events" jsonb NOT NULL DEFAULT '[]', "description" text NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a73ea1312d8477451c4cc9ab3c5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_flow_operations_class" ON "flow_operations"  ("class") `);
    await queryRunner.query(
      `CREATE TABLE "flow_operations_scope" ("id" BIGSERIAL NOT NULL, "operation_id" integer NOT NULL, "type" smallint NOT NULL, "value" character varying(64) NOT NULL DEFAULT '', CONSTRAINT "PK_b0795b260a0666e122454f2e86e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_flow_operations_scope_type_value" ON "flow_operations_scope"  ("type", "value") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_flow_operations_scope" ON "flow_operations_scope"  ("operation_id", "type", "value") `,
    );
    await queryRunner.query(
      `ALTER TABLE "flow_operations_scope" ADD CONSTRAINT "FK_ec6feff8eca13e3dc7851ea2ef9" FOREIGN KEY ("operation_id") REFERENCES "flow_operations"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "flow_operations_scope" DROP CONSTRAINT "FK_ec6feff8eca13e3dc7851ea2ef9"`,
    );
    await queryRunner.query(`DROP INDEX "UQ_flow_operations_scope"`);
    await queryRunner.query(`DROP INDEX "IDX_flow_operations_scope_type_value"`);
    await queryRunner.query(`DROP TABLE "flow_operations_scope"`);
    await queryRunner.query(`DROP INDEX "IDX_flow_operations_class"`);
    await queryRunner.query(`DROP TABLE "flow_operations"`);
    await queryRunner.query(`DROP INDEX "UQ_flow_checks_hash"`);
    await queryRunner.query(`DROP TABLE "flow_checks"`);
  }
}
