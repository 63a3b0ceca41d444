import { ApiProperty } from '@nestjs/swagger';
import type { Milestone } from './milestone.entity';

/** Gitea's `Milestone` JSON. */
export class GiteaMilestoneDto {
  @ApiProperty() id: number;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['open', 'closed'] }) state: 'open' | 'closed';
  @ApiProperty() open_issues: number;
  @ApiProperty() closed_issues: number;
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) updated_at: string | null;
  @ApiProperty({ nullable: true, type: String }) closed_at: string | null;
  @ApiProperty({ nullable: true, type: String }) due_on: string | null;
}

export function presentGiteaMilestone(
  milestone: Milestone,
  counts: { open: number; closed: number } = { open: 0, closed: 0 },
): GiteaMilestoneDto {
  return {
    id: Number(milestone.id),
    title: milestone.name,
    description: milestone.description,
    state: milestone.isClosed ? 'closed' : 'open',
    open_issues: counts.open,
    closed_issues: counts.closed,
    created_at: milestone.createdAt.toISOString(),
    updated_at: milestone.updatedAt ? milestone.updatedAt.toISOString() : null,
    closed_at: milestone.closedAt ? milestone.closedAt.toISOString() : null,
    due_on: milestone.dueOn ? milestone.dueOn.toISOString() : null,
  };
}
