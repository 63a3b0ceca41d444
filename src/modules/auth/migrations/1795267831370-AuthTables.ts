import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthTables1795267831370 implements MigrationInterface {
  name = 'AuthTables1795267831370';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "auth_oauth_convert_states" ("state" character varying(64) NOT NULL, "user_id" bigint NOT NULL, "from_login_type" character varying(16) NOT NULL, "to_login_type" character varying(16) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8edf7ec895da2cf6ace5d94a5e7" PRIMARY KEY ("state"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_auth_oauth_convert_states_user" ON "auth_oauth_convert_states"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "auth_one_time_passcodes" ("user_id" bigint NOT NULL, "hashed_passcode" bytea NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cf7e38ae8a760c705b866030543" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "auth_token_allow_lists" ("token_id" character varying(10) NOT NULL, "entries" jsonb NOT NULL, CONSTRAINT "PK_79691d27a387fad3a2b3db344e6" PRIMARY KEY ("token_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "auth_oauth_convert_states" ADD CONSTRAINT "FK_d9fc97e4324e770da8fdd68e520" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "auth_one_time_passcodes" ADD CONSTRAINT "FK_cf7e38ae8a760c705b866030543" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "auth_token_allow_lists" ADD CONSTRAINT "FK_79691d27a387fad3a2b3db344e6" FOREIGN KEY ("token_id") REFERENCES "api_tokens"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "auth_token_allow_lists" DROP CONSTRAINT "FK_79691d27a387fad3a2b3db344e6"`,
    );
    await queryRunner.query(
      `ALTER TABLE "auth_one_time_passcodes" DROP CONSTRAINT "FK_cf7e38ae8a760c705b866030543"`,
    );
    await queryRunner.query(
      `ALTER TABLE "auth_oauth_convert_states" DROP CONSTRAINT "FK_d9fc97e4324e770da8fdd68e520"`,
    );
    await queryRunner.query(`DROP TABLE "auth_token_allow_lists"`);
    await queryRunner.query(`DROP TABLE "auth_one_time_passcodes"`);
    await queryRunner.query(`DROP INDEX "IDX_auth_oauth_convert_states_user"`);
    await queryRunner.query(`DROP TABLE "auth_oauth_convert_states"`);
  }
}
