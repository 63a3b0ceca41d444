/**
 * Gitea's `Link` header: next, last, first, prev (each only when it applies), joined by ","
 * without spaces, built from the request URL with `page` replaced and the query sorted.
 */
export function giteaLinkHeader(
  publicUrl: string,
  originalUrl: string,
  page: number,
  limit: number,
  total: number,
): string {
  const lastPage = Math.max(1, Math.ceil(total / limit));
  const [path = '', query = ''] = originalUrl.split('?');
  const params = new URLSearchParams(query);
  const link = (target: number, rel: string) => {
    params.set('page', String(target));
    const sorted = new URLSearchParams(
      [...params.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    return `<${publicUrl}${path.replace(/^\//, '')}?${sorted.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < lastPage) links.push(link(page + 1, 'next'));
  if (page !== lastPage) links.push(link(lastPage, 'last'));
  if (page !== 1) links.push(link(1, 'first'));
  if (page > 1) links.push(link(page - 1, 'prev'));
  return links.join(',');
}
