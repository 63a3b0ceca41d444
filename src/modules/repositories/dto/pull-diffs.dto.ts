import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBooleanString, IsOptional } from 'class-validator';

/** `?binary=true`: the diff carries binary changes too, so `git apply` can apply it (Gitea's option). */
export class PullDiffQueryDto {
  @ApiPropertyOptional({ description: 'include binary file changes (a diff `git apply` can apply)' })
  @IsOptional()
  @IsBooleanString()
  binary?: string;
}
