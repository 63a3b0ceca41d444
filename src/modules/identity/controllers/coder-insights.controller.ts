import { Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AccessPolicy } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import {
  UserStatusChangeCountDto,
  UserStatusCountsQueryDto,
  UserStatusCountsResponseDto,
} from '../management/coder-management.dto';
import { chartTimeZone, UserStatusChartService } from '../management/user-status-chart.service';

/** Coder's user status chart (`/api/v2/insights/user-status-counts`): readers of every user (owners, auditors, user admins). */
@CoderController('insights')
@ApiExtraModels(UserStatusChangeCountDto)
export class CoderInsightsController {
  constructor(
    private readonly chart: UserStatusChartService,
    private readonly authz: AccessPolicy,
  ) {}

  @Get('user-status-counts')
  @Authenticated({ tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({
    summary: 'Active, dormant and suspended users per calendar day of the last 60 days, in a time zone',
  })
  @ApiOkResponse({ type: UserStatusCountsResponseDto })
  @ApiResponse({ status: 400, type: CoderResponseDto })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  async userStatusCounts(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UserStatusCountsQueryDto,
  ): Promise<UserStatusCountsResponseDto> {
    const zone = chartTimeZone(query);
    await this.authz.require(principal, 'read', { type: 'user' });
    const counts = await this.chart.counts(zone);
    return {
      status_counts: Object.fromEntries(
        Object.entries(counts).map(([status, days]) => [
          status,
          days.map((day) => ({ date: day.date.toISOString(), count: day.count })),
        ]),
      ),
    };
  }
}
