import { Module } from '@nestjs/common';

/** Placeholder: filled in by its issue. */
@Module({})
export class WorkflowsModule {}
