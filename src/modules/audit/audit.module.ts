import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import { AuditController } from './audit.controller';
import { AuditLogEntry } from './audit-log.entity';
import { AuditLogService } from './audit-log.service';

/** The audit log: provides the platform's AuditLog port to every module, and `GET /api/v2/audit`. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntry])],
  controllers: [AuditController],
  providers: [AuditLogService, { provide: AuditLog, useExisting: AuditLogService }],
  exports: [AuditLog, AuditLogService],
})
export class AuditModule {}
