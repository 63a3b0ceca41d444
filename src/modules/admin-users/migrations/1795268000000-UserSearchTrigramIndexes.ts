import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Substring search of GET /admin/users (`q` over name, full name and email) on PostgreSQL with
 * pg_trgm: three GIN trigram indexes on the lowercased columns, combined by a BitmapOr.
 * Expression indexes are invisible to TypeORM's schema diff, so the drift check ignores them.
 * Where pg_trgm cannot be installed (embedded PGlite, or a role without the right), nothing is
 * created and search scans the table (see the module README and bench/admin-users.bench.ts).
 * The extension goes into `public` so dropping a (test) schema never drops it.
 */
export class UserSearchTrigramIndexes1795268000000 implements MigrationInterface {
  name = 'UserSearchTrigramIndexes1795268000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DO $$
DECLARE
  ops text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm unavailable (%): user search without trigram indexes', SQLERRM;
    END;
  END IF;
  SELECT quote_ident(n.nspname) || '.gin_trgm_ops' INTO ops
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF ops IS NOT NULL THEN
    EXECUTE format('CREATE INDEX IF NOT EXISTS "IDX_users_trgm_name" ON users USING gin (lower(name) %s)', ops);
    EXECUTE format('CREATE INDEX IF NOT EXISTS "IDX_users_trgm_full_name" ON users USING gin (lower(full_name) %s)', ops);
    EXECUTE format('CREATE INDEX IF NOT EXISTS "IDX_users_trgm_email" ON users USING gin (lower(email) %s)', ops);
  END IF;
END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "IDX_users_trgm_email"');
    await queryRunner.query('DROP INDEX IF EXISTS "IDX_users_trgm_full_name"');
    await queryRunner.query('DROP INDEX IF EXISTS "IDX_users_trgm_name"');
  }
}
