import { Packages1795731328088 } from './1795731328088-Packages';
import { PackageBlobDigestsLater1795945775797 } from './1795945775797-PackageBlobDigestsLater';

export const PACKAGES_MIGRATIONS: Function[] = [Packages1795731328088, PackageBlobDigestsLater1795945775797];
