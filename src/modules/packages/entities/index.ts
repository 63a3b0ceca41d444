import { PackageBlob } from './package-blob.entity';
import { PackageFile } from './package-file.entity';
import { PackageVersion } from './package-version.entity';
import { Package } from './package.entity';

export const PACKAGES_ENTITIES: Function[] = [Package, PackageVersion, PackageBlob, PackageFile];
