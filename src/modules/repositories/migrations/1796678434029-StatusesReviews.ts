import type { MigrationInterface, QueryRunner } from 'typeorm';

export class StatusesReviews1796678434029 implements MigrationInterface {
  name = 'StatusesReviews1796678434029';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pull_reviews" ("id" BIGSERIAL NOT NULL, "issue_id" bigint NOT NULL, "reviewer_id" bigint, "state" character varying(20) NOT NULL, "body" text NOT NULL DEFAULT '', "commit_id" character varying(64) NOT NULL DEFAULT '', "official" boolean NOT NULL DEFAULT false, "stale" boolean NOT NULL DEFAULT false, "dismissed" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_751c8d1b8f15f86ec8a13658729" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_pull_reviews_issue" ON "pull_reviews"  ("issue_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "pull_review_comments" ("id" BIGSERIAL NOT NULL, "review_id" bigint NOT NULL, "poster_id" bigint, "path" text NOT NULL, "body" text NOT NULL DEFAULT '', "line" integer NOT NULL DEFAULT '0', "commit_id" character varying(64) NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dc9e9a8064dabb8cc2bffb99ee8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pull_review_comments_review" ON "pull_review_comments"  ("review_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "commit_statuses" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "sha" character varying(64) NOT NULL, "context" character varying(255) NOT NULL DEFAULT 'default', "state" character varying(16) NOT NULL, "description" text NOT NULL DEFAULT '', "target_url" text NOT NULL DEFAULT '', "creator_id" bigint, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fbed067b6c1a52828c4adb92132" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_commit_statuses_repository_sha" ON "commit_statuses"  ("repository_id", "sha", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_reviews" ADD CONSTRAINT "FK_988f7f58a520f7755b212bab2c6" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_reviews" ADD CONSTRAINT "FK_2ba4232710268decf7018c206d5" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_review_comments" ADD CONSTRAINT "FK_9d94561e391881d6a239628b79e" FOREIGN KEY ("review_id") REFERENCES "pull_reviews"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_review_comments" ADD CONSTRAINT "FK_239a99ad51470f2027618575387" FOREIGN KEY ("poster_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "commit_statuses" ADD CONSTRAINT "FK_92cf8b493053fa6ca31d167bdd8" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "commit_statuses" ADD CONSTRAINT "FK_8e8a6cd154092283bb8332e17db" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "commit_statuses" DROP CONSTRAINT "FK_8e8a6cd154092283bb8332e17db"`);
    await queryRunner.query(`ALTER TABLE "commit_statuses" DROP CONSTRAINT "FK_92cf8b493053fa6ca31d167bdd8"`);
    await queryRunner.query(
      `ALTER TABLE "pull_review_comments" DROP CONSTRAINT "FK_239a99ad51470f2027618575387"`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_review_comments" DROP CONSTRAINT "FK_9d94561e391881d6a239628b79e"`,
    );
    await queryRunner.query(`ALTER TABLE "pull_reviews" DROP CONSTRAINT "FK_2ba4232710268decf7018c206d5"`);
    await queryRunner.query(`ALTER TABLE "pull_reviews" DROP CONSTRAINT "FK_988f7f58a520f7755b212bab2c6"`);
    await queryRunner.query(`DROP INDEX "IDX_commit_statuses_repository_sha"`);
    await queryRunner.query(`DROP TABLE "commit_statuses"`);
    await queryRunner.query(`DROP INDEX "IDX_pull_review_comments_review"`);
    await queryRunner.query(`DROP TABLE "pull_review_comments"`);
    await queryRunner.query(`DROP INDEX "IDX_pull_reviews_issue"`);
    await queryRunner.query(`DROP TABLE "pull_reviews"`);
  }
}
