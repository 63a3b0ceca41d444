import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The database probe of the readiness check. */
@Injectable()
export class SystemHealthRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Rejects when the database does not answer. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
