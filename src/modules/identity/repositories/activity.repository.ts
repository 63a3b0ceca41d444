import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACTIVITY_WRITE } from '../../../platform/cache/table-versions';

/** One batched token use, by token id. */
export interface TokenUseRow {
  id: string;
  lastUsedAt: Date | null;
  ipAddress: string;
  expiresAt: Date;
  updatedAt: Date;
}

/** The batched activity writes of ActivityRecorder: one `UPDATE … FROM unnest(…)` per table. */
@Injectable()
export class ActivityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async writeTokenUses(uses: TokenUseRow[]): Promise<void> {
    await this.dataSource.query(
      `${ACTIVITY_WRITE} UPDATE api_tokens t
            SET last_used_at = u.last_used_at, ip_address = u.ip_address, expires_at = u.expires_at, updated_at = u.updated_at
           FROM unnest($1::varchar[], $2::timestamptz[], $3::varchar[], $4::timestamptz[], $5::timestamptz[])
             AS u(id, last_used_at, ip_address, expires_at, updated_at)
          WHERE t.id = u.id`,
      [
        uses.map((use) => use.id),
        uses.map((use) => use.lastUsedAt),
        uses.map((use) => use.ipAddress),
        uses.map((use) => use.expiresAt),
        uses.map((use) => use.updatedAt),
      ],
    );
  }

  async writeLastSeen(userIds: string[], at: Date[]): Promise<void> {
    await this.dataSource.query(
      `${ACTIVITY_WRITE} UPDATE users SET last_seen_at = s.at
           FROM unnest($1::bigint[], $2::timestamptz[]) AS s(id, at) WHERE users.id = s.id`,
      [userIds, at],
    );
  }
}
