import type { EntityManager } from 'typeorm';

/**
 * The groups of a user for UserGroupMembership, lower-cased, in one query: organization names,
 * `org/team` for team memberships, and `admin` for site administrators.
 */
export async function loadUserGroups(manager: EntityManager, userId: string): Promise<Set<string>> {
  if (!/^\d{1,18}$/.test(userId)) return new Set();
  const rows: { g: string }[] = await manager.query(
    `SELECT o.lower_name AS g FROM organization_members m JOIN users o ON o.id = m.organization_id WHERE m.user_id = $1
     UNION SELECT o.lower_name || '/' || t.lower_name FROM team_members tm JOIN teams t ON t.id = tm.team_id
       JOIN users o ON o.id = t.organization_id WHERE tm.user_id = $1
     UNION SELECT 'admin' FROM users WHERE id = $1 AND is_admin`,
    [userId],
  );
  return new Set(rows.map((row) => row.g));
}
