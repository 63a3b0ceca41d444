import type { MigrationInterface, QueryRunner } from 'typeorm';

export class IssuesReleasesPulls1795501354079 implements MigrationInterface {
  name = 'IssuesReleasesPulls1795501354079';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "issues" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "index" bigint NOT NULL, "poster_id" bigint, "title" character varying(255) NOT NULL, "body" text NOT NULL DEFAULT '', "is_pull" boolean NOT NULL DEFAULT false, "is_closed" boolean NOT NULL DEFAULT false, "is_locked" boolean NOT NULL DEFAULT false, "num_comments" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "closed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_9d8ecbbeff46229c700f0449257" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_issues_repository_index" ON "issues"  ("repository_id", "index") `,
    );
    await queryRunner.query(
      `CREATE TABLE "issue_comments" ("id" BIGSERIAL NOT NULL, "issue_id" bigint NOT NULL, "poster_id" bigint, "body" text NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c650a2d6817045a0c8ce74f09f4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_issue_comments_issue" ON "issue_comments"  ("issue_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "pull_requests" ("issue_id" bigint NOT NULL, "head_repository_id" bigint, "head_branch" character varying(255) NOT NULL, "base_branch" character varying(255) NOT NULL, "head_commit_id" character varying(64) NOT NULL DEFAULT '', "base_commit_id" character varying(64) NOT NULL DEFAULT '', "merge_base" character varying(64) NOT NULL DEFAULT '', "status" character varying(16) NOT NULL DEFAULT 'checking', "has_merged" boolean NOT NULL DEFAULT false, "merged_at" TIMESTAMP WITH TIME ZONE, "merged_by_id" bigint, "merged_commit_id" character varying(64), "allow_maintainer_edit" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_88d81fc6f98419b47129962333c" PRIMARY KEY ("issue_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "releases" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "publisher_id" bigint, "tag_name" character varying(255) NOT NULL, "lower_tag_name" character varying(255) NOT NULL, "target" character varying(255) NOT NULL DEFAULT '', "commit_id" character varying(64) NOT NULL DEFAULT '', "title" character varying(255) NOT NULL DEFAULT '', "note" text NOT NULL DEFAULT '', "is_draft" boolean NOT NULL DEFAULT false, "is_prerelease" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "published_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6b6fc2599a5a281dd44a7d64016" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_releases_repository_tag" ON "releases"  ("repository_id", "lower_tag_name") `,
    );
    await queryRunner.query(
      `ALTER TABLE "issues" ADD CONSTRAINT "FK_7f2adea8dbcb12dc266a1eab763" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issues" ADD CONSTRAINT "FK_33bf02c56fe76c6ce3c94f7c441" FOREIGN KEY ("poster_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issue_comments" ADD CONSTRAINT "FK_5031938a085cb5bea6ed4eaeb53" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "issue_comments" ADD CONSTRAINT "FK_762d70d3652d294092271d1eb5a" FOREIGN KEY ("poster_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_requests" ADD CONSTRAINT "FK_88d81fc6f98419b47129962333c" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_requests" ADD CONSTRAINT "FK_5f7677f2c15da4c2c2d8321cf05" FOREIGN KEY ("head_repository_id") REFERENCES "repositories"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_requests" ADD CONSTRAINT "FK_3ce19c89efd8c905a188bde3d1d" FOREIGN KEY ("merged_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "releases" ADD CONSTRAINT "FK_8f596dfa9b8f2bf49e7ef72acbd" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "releases" ADD CONSTRAINT "FK_00d643eb5518ea8b7d6befff40f" FOREIGN KEY ("publisher_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "releases" DROP CONSTRAINT "FK_00d643eb5518ea8b7d6befff40f"`);
    await queryRunner.query(`ALTER TABLE "releases" DROP CONSTRAINT "FK_8f596dfa9b8f2bf49e7ef72acbd"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP CONSTRAINT "FK_3ce19c89efd8c905a188bde3d1d"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP CONSTRAINT "FK_5f7677f2c15da4c2c2d8321cf05"`);
    await queryRunner.query(`ALTER TABLE "pull_requests" DROP CONSTRAINT "FK_88d81fc6f98419b47129962333c"`);
    await queryRunner.query(`ALTER TABLE "issue_comments" DROP CONSTRAINT "FK_762d70d3652d294092271d1eb5a"`);
    await queryRunner.query(`ALTER TABLE "issue_comments" DROP CONSTRAINT "FK_5031938a085cb5bea6ed4eaeb53"`);
    await queryRunner.query(`ALTER TABLE "issues" DROP CONSTRAINT "FK_33bf02c56fe76c6ce3c94f7c441"`);
    await queryRunner.query(`ALTER TABLE "issues" DROP CONSTRAINT "FK_7f2adea8dbcb12dc266a1eab763"`);
    await queryRunner.query(`DROP INDEX "IDX_releases_repository_tag"`);
    await queryRunner.query(`DROP TABLE "releases"`);
    await queryRunner.query(`DROP TABLE "pull_requests"`);
    await queryRunner.query(`DROP INDEX "IDX_issue_comments_issue"`);
    await queryRunner.query(`DROP TABLE "issue_comments"`);
    await queryRunner.query(`DROP INDEX "IDX_issues_repository_index"`);
    await queryRunner.query(`DROP TABLE "issues"`);
  }
}
