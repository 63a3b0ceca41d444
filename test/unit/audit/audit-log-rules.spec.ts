import { auditFilterClause } from '../../../src/modules/audit/audit-log.repository';
import { auditLogRow, cappedCount } from '../../../src/modules/audit/audit-query';

describe('audit: the recorded row', () => {
  const entry = { action: 'write', resourceType: 'user', resourceId: '7', resourceTarget: 'alice' };
  const request = { userId: '3', ip: '10.0.0.1', userAgent: 'curl', requestId: 'req-1' };

  it('takes the actor, address, agent and request id from the current request when the entry leaves them out', () => {
    expect(auditLogRow(entry, request)).toEqual({
      userId: '3',
      organizationId: null,
      ip: '10.0.0.1',
      userAgent: 'curl',
      requestId: 'req-1',
      resourceType: 'user',
      resourceId: '7',
      resourceTarget: 'alice',
      action: 'write',
      diff: {},
      statusCode: 200,
      additionalFields: {},
    });
  });

  it('keeps an explicit system actor (null) instead of the caller', () => {
    expect(auditLogRow({ ...entry, actorUserId: null }, request).userId).toBeNull();
    expect(auditLogRow({ ...entry, actorUserId: '9' }, request).userId).toBe('9');
  });

  it('records nulls outside a request, and cuts the target to 512 characters', () => {
    const row = auditLogRow({ ...entry, resourceTarget: 'x'.repeat(600), statusCode: 201 }, undefined);
    expect(row).toMatchObject({ userId: null, ip: null, userAgent: null, requestId: null, statusCode: 201 });
    expect(row.resourceTarget).toHaveLength(512);
  });
});

describe('audit: the list filters and count cap', () => {
  it('has no clause without filters', () => {
    expect(auditFilterClause({})).toEqual({ clause: '', params: [] });
  });

  it('numbers parameters in filter order; each resolved user filter narrows the actors', () => {
    const { clause, params } = auditFilterClause({
      action: 'delete',
      userIds: [['7', '9'], []],
      visibleOrganizations: ['o1'],
    });
    expect(clause).toBe(
      'WHERE l.action = $1 AND l.organization_id = ANY($2::uuid[])' +
        ' AND l.user_id = ANY($3::bigint[]) AND l.user_id = ANY($4::bigint[])',
    );
    expect(params).toEqual(['delete', ['o1'], ['7', '9'], []]);
  });

  it('reports the cap once the count goes past it', () => {
    expect(cappedCount(3, 3)).toEqual({ count: 3 });
    expect(cappedCount(4, 3)).toEqual({ count: 3, countCap: 3 });
  });
});
