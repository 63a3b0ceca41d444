import { CHECK_PREFIX, ENTITY_FILE, SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import { CheckInvalidError, OPERATOR_INVALID, type CheckDefinition } from './check.types';

const OPERATORS = ['less', '!less', 'greater', '!greater'];
const SIZE = /^(\d+) ?([kmgt]?)b$/i;
const POWERS: Record<string, number> = { '': 0, k: 1, m: 2, g: 3, t: 4 };

/** `5 MB` → 5 × 1024²; null when the text is not a size. */
export function parseFileSize(value: string): number | null {
  const m = SIZE.exec(value);
  if (!m) return null;
  return Math.round(Number(m[1]) * 1024 ** POWERS[m[2]!.toLowerCase()]!);
}

/**
 * Nextcloud's FileSize. The size is the file's size from the event, or the declared upload size
 * for the access-control pre-check. No known size → every operator is false (Nextcloud's intent).
 */
export const FileSizeCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}FileSize`,
  name: 'File size (upload)',
  operators: OPERATORS,
  valueFormat: 'integer, optional space, optional k|m|g|t, mandatory b (1024-based, case-insensitive)',
  examples: ['5 MB', '100b', '1 GB'],
  supportedEntities: [ENTITY_FILE],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate(operator, value) {
    if (!OPERATORS.includes(operator)) throw new CheckInvalidError(OPERATOR_INVALID);
    if (parseFileSize(value) === null) throw new CheckInvalidError('The given file size is invalid');
  },
  compile(operator, value) {
    const limit = parseFileSize(value);
    if (limit === null) return () => false;
    const test: Record<string, (size: number) => boolean> = {
      less: (size) => size < limit,
      '!less': (size) => size >= limit,
      greater: (size) => size > limit,
      '!greater': (size) => size <= limit,
    };
    const fn = test[operator];
    if (!fn) return () => false;
    return (s) => {
      const size = s.file?.size ?? s.request?.declaredSize ?? null;
      return typeof size === 'number' && Number.isFinite(size) ? fn(size) : false;
    };
  },
};
