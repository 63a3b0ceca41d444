import { ApiProperty } from '@nestjs/swagger';
import type { User } from '../identity/entities/user.entity';
import { GiteaUserDto, presentGiteaUser } from '../identity/presenters/gitea-user.presenter';
import type { PackageFile } from './entities/package-file.entity';
import type { PackageVersion } from './entities/package-version.entity';
import type { Package } from './entities/package.entity';

export class GiteaPackageDto {
  @ApiProperty({ description: 'the package version id' }) id: number;
  @ApiProperty({ type: GiteaUserDto }) owner: GiteaUserDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "Gitea's Repository, when linked and readable by the caller",
  })
  repository: Record<string, unknown> | null;
  @ApiProperty({ type: GiteaUserDto }) creator: GiteaUserDto;
  @ApiProperty() type: string;
  @ApiProperty() name: string;
  @ApiProperty() version: string;
  @ApiProperty() html_url: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class GiteaPackageFileDto {
  @ApiProperty() id: number;
  @ApiProperty() size: number;
  @ApiProperty() name: string;
  @ApiProperty() md5: string;
  @ApiProperty() sha1: string;
  @ApiProperty() sha256: string;
  @ApiProperty() sha512: string;
}

/** Gitea's ghost for a creator whose account is gone. */
function ghost(): User {
  return {
    id: '-1',
    name: 'Ghost',
    lowerName: 'ghost',
    fullName: '',
    email: '',
    type: 'individual',
    isAdmin: false,
    createdAt: new Date(0),
  } as User;
}

export function presentGiteaPackage(
  pkg: Package,
  version: PackageVersion,
  context: { owner: User; viewer: User; publicUrl: string; repository: Record<string, unknown> | null },
): GiteaPackageDto {
  const ownerUrl = `${context.publicUrl}${encodeURIComponent(context.owner.name)}`;
  return {
    id: Number(version.id),
    owner: presentGiteaUser(context.owner, context.viewer, context.publicUrl),
    repository: context.repository,
    creator: presentGiteaUser(version.creator ?? ghost(), context.viewer, context.publicUrl),
    type: pkg.type,
    name: pkg.name,
    version: version.version,
    html_url: `${ownerUrl}/-/packages/${pkg.type}/${encodeURIComponent(pkg.lowerName)}/${encodeURIComponent(version.lowerVersion)}`,
    created_at: version.createdAt.toISOString(),
  };
}

/** A file whose blob has all four digests (PackagesService.filesOf completes missing ones before this). */
export function presentGiteaPackageFile(file: PackageFile): GiteaPackageFileDto {
  return {
    id: Number(file.id),
    size: Number(file.blob.size),
    name: file.name,
    md5: file.blob.md5!,
    sha1: file.blob.sha1!,
    sha256: file.blob.sha256,
    sha512: file.blob.sha512!,
  };
}
