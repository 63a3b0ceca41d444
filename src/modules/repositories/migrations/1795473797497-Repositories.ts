import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Repositories1795473797497 implements MigrationInterface {
  name = 'Repositories1795473797497';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "repositories" ("id" BIGSERIAL NOT NULL, "owner_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "lower_name" character varying(100) NOT NULL, "description" character varying(2048) NOT NULL DEFAULT '', "website" character varying(1024) NOT NULL DEFAULT '', "is_private" boolean NOT NULL DEFAULT false, "is_empty" boolean NOT NULL DEFAULT true, "is_archived" boolean NOT NULL DEFAULT false, "archived_at" TIMESTAMP WITH TIME ZONE, "is_mirror" boolean NOT NULL DEFAULT false, "default_branch" character varying(255) NOT NULL DEFAULT 'main', "fork_id" bigint, "size_kib" bigint NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ef0c358c04b4f4d29b8ca68ddff" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_repositories_owner_lower_name" ON "repositories"  ("owner_id", "lower_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "repository_collaborators" ("repository_id" bigint NOT NULL, "user_id" bigint NOT NULL, "mode" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5d3c03037fabe7e9c4f8bd97e3b" PRIMARY KEY ("repository_id", "user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "repository_redirects" ("id" BIGSERIAL NOT NULL, "owner_id" bigint NOT NULL, "lower_name" character varying(100) NOT NULL, "repository_id" bigint NOT NULL, CONSTRAINT "PK_ee899f0498eb7ad944fc8f132b2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_repository_redirects_owner_lower_name" ON "repository_redirects"  ("owner_id", "lower_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "team_repositories" ("team_id" bigint NOT NULL, "repository_id" bigint NOT NULL, CONSTRAINT "PK_fc35da851e792a1bc9347be69d5" PRIMARY KEY ("team_id", "repository_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "repositories" ADD CONSTRAINT "FK_9af57d895c4c3efb1d5e008ac07" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_collaborators" ADD CONSTRAINT "FK_94791f03606e3799dbc53745b51" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_collaborators" ADD CONSTRAINT "FK_cf6ae56dc2cb3ddb6124b5fcbc8" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_redirects" ADD CONSTRAINT "FK_b1010ff784e4176aa3c9f66b37b" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_repositories" ADD CONSTRAINT "FK_4d706f7d04428d0e16d4649c2d1" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_repositories" ADD CONSTRAINT "FK_f359a502fbaf8fded10e2684aa8" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "team_repositories" DROP CONSTRAINT "FK_f359a502fbaf8fded10e2684aa8"`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_repositories" DROP CONSTRAINT "FK_4d706f7d04428d0e16d4649c2d1"`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_redirects" DROP CONSTRAINT "FK_b1010ff784e4176aa3c9f66b37b"`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_collaborators" DROP CONSTRAINT "FK_cf6ae56dc2cb3ddb6124b5fcbc8"`,
    );
    await queryRunner.query(
      `ALTER TABLE "repository_collaborators" DROP CONSTRAINT "FK_94791f03606e3799dbc53745b51"`,
    );
    await queryRunner.query(`ALTER TABLE "repositories" DROP CONSTRAINT "FK_9af57d895c4c3efb1d5e008ac07"`);
    await queryRunner.query(`DROP TABLE "team_repositories"`);
    await queryRunner.query(`DROP INDEX "IDX_repository_redirects_owner_lower_name"`);
    await queryRunner.query(`DROP TABLE "repository_redirects"`);
    await queryRunner.query(`DROP TABLE "repository_collaborators"`);
    await queryRunner.query(`DROP INDEX "IDX_repositories_owner_lower_name"`);
    await queryRunner.query(`DROP TABLE "repositories"`);
  }
}
