import { lookup } from 'mime-types';
import { isFileTransferPath } from '../../../platform/events/subject-events';
import { CHECK_PREFIX, ENTITY_FILE, normalizeOperator, SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import {
  CheckInvalidError,
  OPERATOR_INVALID,
  type CheckDefinition,
  type CheckSubject,
  type CompiledCheck,
} from './check.types';
import { compilePhpRegex, phpRegexProblem, phpRegexTest } from './php-regex';

const STRING_OPERATORS = ['is', '!is', 'matches', '!matches', 'match', '!match'];
const REGEX_FORMAT =
  'for is/!is: any string; for matches/!matches: a PHP-delimited regular expression such as /\\.pdf$/i';

function validateString(operator: string, value: string): void {
  if (!STRING_OPERATORS.includes(operator)) throw new CheckInvalidError(OPERATOR_INVALID);
  const op = normalizeOperator(operator);
  if (op === 'matches' || op === '!matches') {
    const problem = phpRegexProblem(value);
    // Valid PCRE that RE2 cannot run (look-around, back-references, ...) is refused with the reason (a deviation from Nextcloud).
    if (problem?.unsupported)
      throw new CheckInvalidError(`The given regular expression is not supported: ${problem.message}`);
    if (problem) throw new CheckInvalidError('The given regular expression is invalid');
  }
}

/** Nextcloud's AbstractStringCheck: is / !is exact, matches / !matches by regex; a failing regex makes both false. */
function compileString(
  operator: string,
  value: string,
  actual: (s: CheckSubject) => string | null,
  fold = false,
): CompiledCheck {
  const op = normalizeOperator(operator);
  if (op === 'is' || op === '!is') {
    const expected = fold ? value.toLowerCase() : value;
    const negate = op === '!is';
    return (s) => {
      const a = actual(s);
      if (a === null) return negate;
      return ((fold ? a.toLowerCase() : a) === expected) !== negate;
    };
  }
  if (op === 'matches' || op === '!matches') {
    let compiled: ReturnType<typeof compilePhpRegex>;
    try {
      compiled = compilePhpRegex(value);
    } catch {
      return () => false;
    }
    const negate = op === '!matches';
    return (s) => {
      const a = actual(s);
      if (a === null) return false;
      const result = phpRegexTest(compiled, a, s.regexBudget);
      return result === null ? false : result !== negate;
    };
  }
  return () => false;
}

export const FileNameCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}FileName`,
  name: 'File name',
  operators: STRING_OPERATORS,
  valueFormat: `${REGEX_FORMAT}; is/!is compare case-insensitively`,
  examples: ['report.pdf', '/\\.exe$/i'],
  supportedEntities: [ENTITY_FILE],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate: validateString,
  compile: (operator, value) =>
    compileString(
      operator,
      value,
      (s) => s.file?.name ?? null,
      normalizeOperator(operator) === 'is' || normalizeOperator(operator) === '!is',
    ),
};

const mimeCache = new WeakMap<object, string>();

/** The stored MIME type, lower-cased; unknown or octet-stream → guessed from the file name. Computed once per event. */
export function effectiveMimeType(file: { name: string; mimeType: string | null }): string {
  let mime = mimeCache.get(file);
  if (mime === undefined) {
    mime = computeMimeType(file);
    mimeCache.set(file, mime);
  }
  return mime;
}

function computeMimeType(file: { name: string; mimeType: string | null }): string {
  const stored = (file.mimeType ?? '').toLowerCase().split(';')[0]!.trim();
  if (stored && stored !== 'application/octet-stream') return stored;
  return lookup(file.name) || 'application/octet-stream';
}

export const FileMimeTypeCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}FileMimeType`,
  name: 'File MIME type',
  operators: STRING_OPERATORS,
  valueFormat: REGEX_FORMAT,
  examples: ['application/pdf', '/image\\/.*/', '/(vnd\\.(ms-|openxmlformats-|oasis\\.opendocument).*)$/'],
  supportedEntities: [ENTITY_FILE],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate: validateString,
  compile: (operator, value) =>
    compileString(operator, value, (s) => (s.file ? effectiveMimeType(s.file) : null)),
};

function transferFromUrl(url: string | null): boolean {
  if (!url) return false;
  try {
    return isFileTransferPath(new URL(url).pathname);
  } catch {
    return false;
  }
}

export const RequestURLCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}RequestURL`,
  name: 'Request URL',
  operators: STRING_OPERATORS,
  valueFormat: `${REGEX_FORMAT}; the URL is protocol://host/path without the query, "cli" without a request; "webdav" with is/!is means a file transfer (package registry, git smart HTTP, attachment download)`,
  examples: ['webdav', '/^https:\\/\\/git\\.example\\.com\\/api\\/packages\\//'],
  supportedEntities: [],
  scopes: [SCOPE_ADMIN],
  validate: validateString,
  compile: (operator, value) => {
    const op = normalizeOperator(operator);
    if ((op === 'is' || op === '!is') && value === 'webdav') {
      return (s) => {
        const transfer = s.request !== null && (s.request.fileTransfer ?? transferFromUrl(s.request.url));
        return op === 'is' ? transfer : !transfer;
      };
    }
    return compileString(operator, value, (s) => (s.request ? (s.request.url ?? '') : 'cli'));
  },
};

/** Nextcloud's client-family shorthands (newest forms). */
const UA_FAMILIES: Record<string, RegExp[]> = {
  android: [/^Mozilla\/5\.0 \(Android\) (?:ownCloud|Nextcloud)-android\/.*$/s],
  ios: [/^Mozilla\/5\.0 \(iOS\) (?:ownCloud|Nextcloud)-iOS\/.*$/s],
  desktop: [/^Mozilla\/5\.0 \([A-Za-z ]+\) (?:mirall|csyncoC)\/.*$/s],
  mail: [
    /^Mozilla\/5\.0 \([A-Za-z ]+\) Nextcloud-Outlook v.*$/s,
    /^Filelink for \*cloud\/[1-9][0-9]*\.[0-9]+\.[0-9]+$/,
  ],
};

export const RequestUserAgentCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}RequestUserAgent`,
  name: 'Request user agent',
  operators: STRING_OPERATORS,
  valueFormat: `${REGEX_FORMAT}; with is/!is the values android, ios, desktop and mail stand for Nextcloud client families`,
  examples: ['android', 'desktop', '/curl\\//'],
  supportedEntities: [],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate: validateString,
  compile: (operator, value) => {
    const op = normalizeOperator(operator);
    const family = UA_FAMILIES[value];
    if ((op === 'is' || op === '!is') && family) {
      return (s) => {
        const ua = s.request?.userAgent ?? '';
        const hit = family.some((re) => re.test(ua));
        return op === 'is' ? hit : !hit;
      };
    }
    return compileString(operator, value, (s) => s.request?.userAgent ?? '');
  },
};
