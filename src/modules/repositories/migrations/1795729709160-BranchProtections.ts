import type { MigrationInterface, QueryRunner } from 'typeorm';

export class BranchProtections1795729709160 implements MigrationInterface {
  name = 'BranchProtections1795729709160';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "branch_protections" ("id" BIGSERIAL NOT NULL, "repository_id" bigint NOT NULL, "rule_name" character varying(255) NOT NULL, "priority" bigint NOT NULL DEFAULT '0', "enable_push" boolean NOT NULL DEFAULT false, "enable_push_whitelist" boolean NOT NULL DEFAULT false, "push_whitelist_user_ids" jsonb NOT NULL DEFAULT '[]', "push_whitelist_team_ids" jsonb NOT NULL DEFAULT '[]', "push_whitelist_deploy_keys" boolean NOT NULL DEFAULT false, "enable_force_push" boolean NOT NULL DEFAULT false, "enable_force_push_allowlist" boolean NOT NULL DEFAULT false, "force_push_allowlist_user_ids" jsonb NOT NULL DEFAULT '[]', "force_push_allowlist_team_ids" jsonb NOT NULL DEFAULT '[]', "force_push_allowlist_deploy_keys" boolean NOT NULL DEFAULT false, "enable_merge_whitelist" boolean NOT NULL DEFAULT false, "merge_whitelist_user_ids" jsonb NOT NULL DEFAULT '[]', "merge_whitelist_team_ids" jsonb NOT NULL DEFAULT '[]', "enable_status_check" boolean NOT NULL DEFAULT false, "status_check_contexts" jsonb, "required_approvals" bigint NOT NULL DEFAULT '0', "enable_approvals_whitelist" boolean NOT NULL DEFAULT false, "approvals_whitelist_user_ids" jsonb NOT NULL DEFAULT '[]', "approvals_whitelist_team_ids" jsonb NOT NULL DEFAULT '[]', "block_on_rejected_reviews" boolean NOT NULL DEFAULT false, "block_on_official_review_requests" boolean NOT NULL DEFAULT false, "block_on_outdated_branch" boolean NOT NULL DEFAULT false, "dismiss_stale_approvals" boolean NOT NULL DEFAULT false, "ignore_stale_approvals" boolean NOT NULL DEFAULT false, "require_signed_commits" boolean NOT NULL DEFAULT false, "protected_file_patterns" text NOT NULL DEFAULT '', "unprotected_file_patterns" text NOT NULL DEFAULT '', "block_admin_merge_override" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6f7eaa4b3ada3b1bd715d6f041c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_branch_protections_repository_rule" ON "branch_protections"  ("repository_id", "rule_name") `,
    );
    await queryRunner.query(
      `ALTER TABLE "branch_protections" ADD CONSTRAINT "FK_b6cd25bc4de3b53491c93e6fee3" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "branch_protections" DROP CONSTRAINT "FK_b6cd25bc4de3b53491c93e6fee3"`,
    );
    await queryRunner.query(`DROP INDEX "IDX_branch_protections_repository_rule"`);
    await queryRunner.query(`DROP TABLE "branch_protections"`);
  }
}
