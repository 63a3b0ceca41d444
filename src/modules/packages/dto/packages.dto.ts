import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { GiteaCheck } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';
import { PACKAGE_TYPES } from '../packages.service';

/** `GET /packages/{owner}/{type}/{name}`: Gitea's ListOptions. */
export class PackageVersionsQueryDto extends GiteaListQueryDto {}

/** `GET /packages/{owner}`: Gitea's filters. */
export class PackageListQueryDto extends PackageVersionsQueryDto {
  @ApiPropertyOptional({
    enum: ['all', ...PACKAGE_TYPES],
    description: 'package type (empty or `all`: every type)',
  })
  @IsOptional()
  @IsString()
  @GiteaCheck(
    (value) =>
      value === undefined ||
      value === '' ||
      value === 'all' ||
      (PACKAGE_TYPES as readonly string[]).includes(String(value)),
    (value) => `invalid package type "${String(value)}"`,
  )
  type?: string;

  @ApiPropertyOptional({ description: 'case-insensitive substring of the package name' })
  @IsOptional()
  @IsString()
  q?: string;
}
