import {
  type CoderPage,
  parsePagination,
  SearchParser,
  searchTerms,
} from '../../../api/coder/coder-search-query';
import { InvalidError } from '../../../platform/errors/domain-error';

/** Coder's `limit`/`offset` query, or 400 `Query parameters have invalid values.`. */
export function coderPage(query: { limit?: string; offset?: string }): CoderPage {
  const parsed = parsePagination(query);
  if ('errors' in parsed)
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: parsed.errors,
    });
  return parsed.page;
}

/** A Coder search query (`q`) read by `read`; bad or unknown terms are 400 `Invalid workspace search query.` style texts. */
export function coderSearch<T>(
  q: string,
  defaultKey: string,
  message: string,
  read: (parser: SearchParser) => T,
): T {
  const terms = searchTerms(q, () => ({ key: defaultKey }));
  if ('errors' in terms) throw new InvalidError(message, { code: 'INVALID_QUERY', fields: terms.errors });
  const parser = new SearchParser(terms.values);
  const result = read(parser);
  const errors = parser.finish();
  if (errors.length > 0) throw new InvalidError(message, { code: 'INVALID_QUERY', fields: errors });
  return result;
}
