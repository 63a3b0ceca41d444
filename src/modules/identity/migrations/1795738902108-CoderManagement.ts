import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CoderManagement1795738902108 implements MigrationInterface {
  name = 'CoderManagement1795738902108';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "user_oidc_links" ("user_id" bigint NOT NULL, "issuer" character varying(2048) NOT NULL, "subject" character varying(255) NOT NULL, "id_token_claims" jsonb NOT NULL DEFAULT '{}', "userinfo_claims" jsonb NOT NULL DEFAULT '{}', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f68756452e18727a2909a03c4a5" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_user_oidc_links_issuer_subject" ON "user_oidc_links"  ("issuer", "subject") `,
    );
    await queryRunner.query(
      `CREATE TABLE "user_status_changes" ("id" BIGSERIAL NOT NULL, "user_id" bigint NOT NULL, "new_status" character varying(16) NOT NULL, "changed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b9af712b26f28871b4bfa5fb0a5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_user_status_changes_changed" ON "user_status_changes"  ("changed_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_user_status_changes_user_changed" ON "user_status_changes"  ("user_id", "changed_at") `,
    );
    await queryRunner.query(`ALTER TABLE "teams" ADD "uuid" uuid NOT NULL DEFAULT gen_random_uuid()`);
    await queryRunner.query(
      `ALTER TABLE "teams" ADD CONSTRAINT "UQ_59dcc55c0af733a59470895cce6" UNIQUE ("uuid")`,
    );
    await queryRunner.query(
      `ALTER TABLE "teams" ADD "display_name" character varying(255) NOT NULL DEFAULT ''`,
    );
    await queryRunner.query(
      `ALTER TABLE "teams" ADD "avatar_url" character varying(2048) NOT NULL DEFAULT ''`,
    );
    await queryRunner.query(`ALTER TABLE "teams" ADD "quota_allowance" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(
      `ALTER TABLE "user_oidc_links" ADD CONSTRAINT "FK_f68756452e18727a2909a03c4a5" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // The status history is written by the database, so no writer can forget it (user status chart).
    await queryRunner.query(`CREATE FUNCTION record_user_status_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          IF OLD.type = 'individual' THEN
            INSERT INTO user_status_changes (user_id, new_status) VALUES (OLD.id, 'deleted');
          END IF;
          RETURN OLD;
        END IF;
        IF NEW.type = 'individual' AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status) THEN
          INSERT INTO user_status_changes (user_id, new_status, changed_at)
            VALUES (NEW.id, NEW.status, CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE now() END);
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER users_status_history AFTER INSERT OR UPDATE OF status OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION record_user_status_change()`,
    );
    await queryRunner.query(
      `INSERT INTO user_status_changes (user_id, new_status, changed_at) SELECT id, status, created_at FROM users WHERE type = 'individual'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER users_status_history ON users`);
    await queryRunner.query(`DROP FUNCTION record_user_status_change()`);
    await queryRunner.query(`ALTER TABLE "user_oidc_links" DROP CONSTRAINT "FK_f68756452e18727a2909a03c4a5"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP COLUMN "quota_allowance"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP COLUMN "avatar_url"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP COLUMN "display_name"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP CONSTRAINT "UQ_59dcc55c0af733a59470895cce6"`);
    await queryRunner.query(`ALTER TABLE "teams" DROP COLUMN "uuid"`);
    await queryRunner.query(`DROP INDEX "IDX_user_status_changes_user_changed"`);
    await queryRunner.query(`DROP INDEX "IDX_user_status_changes_changed"`);
    await queryRunner.query(`DROP TABLE "user_status_changes"`);
    await queryRunner.query(`DROP INDEX "IDX_user_oidc_links_issuer_subject"`);
    await queryRunner.query(`DROP TABLE "user_oidc_links"`);
  }
}
