import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ProvisionerDaemons1795935566955 implements MigrationInterface {
  name = 'ProvisionerDaemons1795935566955';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "provisioner_daemons" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "worker_id" character varying(64) NOT NULL, "organization_id" uuid, "key_id" uuid, "name" character varying(128) NOT NULL, "version" character varying(64) NOT NULL DEFAULT '', "tags" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ac1676618725a6c920a73fcbe04" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "provisioner_daemons_worker" ON "provisioner_daemons"  ("worker_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "provisioner_daemons_organization" ON "provisioner_daemons"  ("organization_id", "last_seen_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "provisioner_daemons_organization"`);
    await queryRunner.query(`DROP INDEX "provisioner_daemons_worker"`);
    await queryRunner.query(`DROP TABLE "provisioner_daemons"`);
  }
}
