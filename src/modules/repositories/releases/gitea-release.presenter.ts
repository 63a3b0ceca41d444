import { ApiProperty } from '@nestjs/swagger';
import { GiteaUserDto } from '../../identity/presenters/gitea-user.presenter';
import { GiteaAssetDto, presentPoster, type PresentContext } from '../issues/gitea-issue.presenter';
import type { Release } from './release.entity';

/** Gitea's `Release` JSON. */
export class GiteaReleaseDto {
  @ApiProperty() id: number;
  @ApiProperty() tag_name: string;
  @ApiProperty() target_commitish: string;
  @ApiProperty() name: string;
  @ApiProperty() body: string;
  @ApiProperty() url: string;
  @ApiProperty() html_url: string;
  @ApiProperty() tarball_url: string;
  @ApiProperty() zipball_url: string;
  @ApiProperty() upload_url: string;
  @ApiProperty() draft: boolean;
  @ApiProperty() prerelease: boolean;
  @ApiProperty() created_at: string;
  @ApiProperty() published_at: string;
  @ApiProperty({ type: GiteaUserDto }) author: GiteaUserDto;
  @ApiProperty({ type: [GiteaAssetDto] }) assets: GiteaAssetDto[];
}

export function presentGiteaRelease(
  release: Release,
  context: PresentContext,
  assets: GiteaAssetDto[] = [],
): GiteaReleaseDto {
  const path = `${encodeURIComponent(context.owner.name)}/${encodeURIComponent(context.repo.name)}`;
  const tag = encodeURIComponent(release.tagName);
  return {
    id: Number(release.id),
    tag_name: release.tagName,
    target_commitish: release.target,
    name: release.title,
    body: release.note,
    url: `${context.publicUrl}api/v1/repos/${path}/releases/${release.id}`,
    html_url: `${context.publicUrl}${path}/releases/tag/${tag}`,
    tarball_url: `${context.publicUrl}${path}/archive/${tag}.tar.gz`,
    zipball_url: `${context.publicUrl}${path}/archive/${tag}.zip`,
    upload_url: `${context.publicUrl}api/v1/repos/${path}/releases/${release.id}/assets`,
    draft: release.isDraft,
    prerelease: release.isPrerelease,
    created_at: release.createdAt.toISOString(),
    published_at: (release.publishedAt ?? release.createdAt).toISOString(),
    author: presentPoster(release.publisher, context),
    assets,
  };
}
