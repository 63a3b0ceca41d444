import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { AUDIT_CONFIG, loadAuditConfig } from './audit.config';
import './audit.error-codes';
import { AuditController } from './audit.controller';
import { AuditLogEntry } from './audit-log.entity';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';

/** The audit log: provides the platform's AuditLog port to every module, and `GET /api/v2/audit`. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntry])],
  controllers: [AuditController],
  providers: [
    {
      provide: AUDIT_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadAuditConfig(config.env),
    },
    AuditLogRepository,
    AuditLogService,
    { provide: AuditLog, useExisting: AuditLogService },
  ],
  exports: [AuditLog, AuditLogService],
})
export class AuditModule {}
