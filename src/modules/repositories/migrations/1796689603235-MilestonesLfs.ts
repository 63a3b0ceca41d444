import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MilestonesLfs1796689603235 implements MigrationInterface {
  name = 'MilestonesLfs1796689603235';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "milestones" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "is_closed" boolean NOT NULL DEFAULT false, "due_on" TIMESTAMP WITH TIME ZONE, "closed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0bdbfe399c777a6a8520ff902d9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_milestones_repository" ON "milestones"  ("repository_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "lfs_objects" ("oid" character varying(64) NOT NULL, "size" bigint NOT NULL, "blob_key" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1e704440659631f93a8f0c5497d" PRIMARY KEY ("oid"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "lfs_repository_objects" ("repository_id" bigint NOT NULL, "oid" character varying(64) NOT NULL, "size" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_206da70f989ec1538fb561616d2" PRIMARY KEY ("repository_id", "oid"))`,
    );
    await queryRunner.query(`ALTER TABLE "issues" ADD "milestone_id" bigint`);
    await queryRunner.query(
      `CREATE INDEX "IDX_issues_milestone" ON "issues"  ("milestone_id", "is_closed") `,
    );
    await queryRunner.query(
      `ALTER TABLE "milestones" ADD CONSTRAINT "FK_c99faad45ab7d167418a6d4f5f1" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issues" ADD CONSTRAINT "FK_4096713db9a322548da14c90240" FOREIGN KEY ("milestone_id") REFERENCES "milestones"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lfs_repository_objects" ADD CONSTRAINT "FK_cdf37e36d7370431474d1a8fb49" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "lfs_repository_objects" DROP CONSTRAINT "FK_cdf37e36d7370431474d1a8fb49"`,
    );
    await queryRunner.query(`ALTER TABLE "issues" DROP CONSTRAINT "FK_4096713db9a322548da14c90240"`);
    await queryRunner.query(`ALTER TABLE "milestones" DROP CONSTRAINT "FK_c99faad45ab7d167418a6d4f5f1"`);
    await queryRunner.query(`DROP INDEX "IDX_issues_milestone"`);
    await queryRunner.query(`ALTER TABLE "issues" DROP COLUMN "milestone_id"`);
    await queryRunner.query(`DROP TABLE "lfs_repository_objects"`);
    await queryRunner.query(`DROP TABLE "lfs_objects"`);
    await queryRunner.query(`DROP INDEX "IDX_milestones_repository"`);
    await queryRunner.query(`DROP TABLE "milestones"`);
  }
}
