import { Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OwnedResourcesRegistry } from '../identity/owned-resources.registry';
import { GenericRegistryController } from './controllers/generic-registry.controller';
import { GiteaPackagesController } from './controllers/gitea-packages.controller';
import { NpmRegistryController } from './controllers/npm-registry.controller';
import { NpmLoginController } from './controllers/npm-login.controller';
import { PACKAGES_ENTITIES } from './entities';
import { NpmPublishAccess } from './npm/npm-publish-access';
import { NpmRegistryService } from './npm/npm-registry.service';
import { PackageBlobsService } from './package-blobs.service';
import { PackagePermissions } from './package-permissions.service';
import { PackageDownloadsService } from './package-downloads.service';
import { PackagesRepository } from './packages.repository';
import { PackagesService } from './packages.service';
import './packages.error-codes';

@Module({
  imports: [TypeOrmModule.forFeature(PACKAGES_ENTITIES)],
  // NpmLoginController before NpmRegistryController: `-/user/...` is never a package name.
  controllers: [
    GiteaPackagesController,
    GenericRegistryController,
    NpmLoginController,
    NpmRegistryController,
  ],
  providers: [
    PackagesRepository,
    PackagesService,
    PackageBlobsService,
    PackageDownloadsService,
    PackagePermissions,
    NpmRegistryService,
    NpmPublishAccess,
  ],
  exports: [PackagesService, PackagePermissions],
})
export class PackagesModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly owned: OwnedResourcesRegistry,
    private readonly packages: PackagesService,
  ) {}

  /** An account that owns packages cannot be deleted (422) unless purged with them. */
  onModuleInit(): void {
    this.owned.register({
      kind: 'packages',
      message: (userId) => `user still has ownership of packages [uid: ${userId}]`,
      count: (userId, manager) => this.packages.countOwnedBy(userId, manager),
      purge: (userId, tx) => this.packages.purgeOwnedBy(userId, tx),
    });
  }

  onModuleDestroy(): void {
    this.owned.unregister('packages');
  }
}
