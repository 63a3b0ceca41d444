import semver from 'semver';

/**
 * The dist-tags a packument shows: the package's tags that name a known version, and `latest`
 * when none does: the highest stable semver version, else the highest prerelease, else the last
 * version published (`versions` in publication order).
 */
export function resolveDistTags(
  distTags: Record<string, string>,
  versions: string[],
): Record<string, string> {
  const known = new Set(versions);
  const tags = Object.fromEntries(Object.entries(distTags).filter(([, version]) => known.has(version)));
  if (!tags.latest && versions.length > 0) {
    const sorted = versions.filter((v) => semver.valid(v)).sort(semver.rcompare);
    const stable = sorted.find((v) => !semver.prerelease(v));
    tags.latest = stable ?? sorted[0] ?? versions[versions.length - 1]!;
  }
  return tags;
}

/**
 * The dist-tags a publish document sets: its string-valued tags whose name is neither empty nor a
 * version; `latest` = the published version when it sets none.
 */
export function publishedDistTags(
  sent: Record<string, unknown> | undefined,
  version: string,
): Record<string, string> {
  const tags: Record<string, string> = {};
  if (sent)
    for (const [tag, value] of Object.entries(sent))
      if (typeof value === 'string' && tag !== '' && !semver.valid(tag)) tags[tag] = value;
  if (Object.keys(tags).length === 0) tags.latest = version;
  return tags;
}

/** A version's metadata after `npm deprecate`: a non-empty `deprecated` text sets it, anything else clears it. */
export function withDeprecation(
  metadata: Record<string, unknown>,
  sent: Record<string, unknown>,
): Record<string, unknown> {
  const next = { ...metadata };
  if (typeof sent.deprecated === 'string' && sent.deprecated !== '') next.deprecated = sent.deprecated;
  else delete next.deprecated;
  return next;
}
