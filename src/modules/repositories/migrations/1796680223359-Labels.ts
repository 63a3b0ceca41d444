import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Labels1796680223359 implements MigrationInterface {
  name = 'Labels1796680223359';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "labels" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "color" character varying(7) NOT NULL, "description" text NOT NULL DEFAULT '', "exclusive" boolean NOT NULL DEFAULT false, "is_archived" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_c0c4e97f76f1f3a268c7a70b925" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_labels_repository" ON "labels"  ("repository_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "issue_labels" ("issue_id" bigint NOT NULL, "label_id" bigint NOT NULL, CONSTRAINT "PK_1ac0a33ade1abb32c03516fa496" PRIMARY KEY ("issue_id", "label_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_issue_labels_label" ON "issue_labels"  ("label_id") `);
    await queryRunner.query(
      `ALTER TABLE "labels" ADD CONSTRAINT "FK_79111ecee5ba70be345c48a30f7" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issue_labels" ADD CONSTRAINT "FK_68c7892926826f61d6a4a6f564d" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issue_labels" ADD CONSTRAINT "FK_b0766ecbfc520efad8879ef13e3" FOREIGN KEY ("label_id") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "issue_labels" DROP CONSTRAINT "FK_b0766ecbfc520efad8879ef13e3"`);
    await queryRunner.query(`ALTER TABLE "issue_labels" DROP CONSTRAINT "FK_68c7892926826f61d6a4a6f564d"`);
    await queryRunner.query(`ALTER TABLE "labels" DROP CONSTRAINT "FK_79111ecee5ba70be345c48a30f7"`);
    await queryRunner.query(`DROP INDEX "IDX_issue_labels_label"`);
    await queryRunner.query(`DROP TABLE "issue_labels"`);
    await queryRunner.query(`DROP INDEX "IDX_labels_repository"`);
    await queryRunner.query(`DROP TABLE "labels"`);
  }
}
