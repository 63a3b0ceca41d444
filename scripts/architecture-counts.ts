/**
 * Counts the persistence and ownership rules of docs/ARCHITECTURE.md from the code (issue 32) and prints them:
 * SQL in controllers, `.query(` outside repository classes, SQL on identity's tables outside identity, the
 * identity ↔ auth imports, and which feature modules have unit tests. `--strict` exits 1 when a count the rules
 * set to zero is not zero (CI runs it without, to print the figures while the migration is under way).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const modulesDir = path.join(root, 'src', 'modules');
const IDENTITY_TABLES = [
  'users',
  'organizations',
  'organization_members',
  'teams',
  'team_members',
  'api_tokens',
];
const identitySql = new RegExp(
  `\\b(?:FROM|JOIN|INTO|UPDATE|DELETE\\s+FROM)\\s+"?(?:${IDENTITY_TABLES.join('|')})"?(?:\\s|$|,|\\))`,
  'i',
);
const SQL_CALL =
  /\.query\s*\(|\.createQueryBuilder\s*\(|\bmanager\.(?:find|save|insert|update|delete|getRepository)/;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : walk(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

const rel = (file: string): string => path.relative(root, file);
const moduleOf = (file: string): string => path.relative(modulesDir, file).split(path.sep)[0];
const files = walk(modulesDir).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
const isController = (file: string): boolean => /controllers[/\\]|\.controller\.ts$/.test(file);

const controllerSql = files.filter(({ file, text }) => isController(file) && SQL_CALL.test(text));
const rawQueries = files
  .filter(({ file }) => !file.endsWith('.repository.ts'))
  .map(({ file, text }) => ({ file, count: (text.match(/\.query\s*\(/g) ?? []).length }))
  .filter(({ count }) => count > 0);
const identityTablesElsewhere = files.filter(
  ({ file, text }) => moduleOf(file) !== 'identity' && identitySql.test(text),
);
const importsOf = (from: string, to: string): string[] =>
  files
    .filter(({ file, text }) => moduleOf(file) === from && new RegExp(`from '(?:\\.\\./)+${to}/`).test(text))
    .map(({ file }) => rel(file));
const identityToAuth = importsOf('identity', 'auth');
const authToIdentity = importsOf('auth', 'identity');

const featureModules = fs
  .readdirSync(modulesDir)
  .filter((name) => fs.statSync(path.join(modulesDir, name)).isDirectory());
const unitTests = (name: string): number => {
  const inModule = walkSpecs(path.join(modulesDir, name)).length;
  const unitDir = path.join(root, 'test', 'unit');
  const inUnitDir = fs.existsSync(unitDir)
    ? fs.readdirSync(unitDir).filter((f) => f.startsWith(`${name}-`)).length
    : 0;
  return inModule + inUnitDir;
};
function walkSpecs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walkSpecs(full);
    return entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}
const withoutUnitTests = featureModules.filter((name) => unitTests(name) === 0);

const rows: [string, number, string[]][] = [
  ['SQL calls in controllers (files)', controllerSql.length, controllerSql.map(({ file }) => rel(file))],
  [
    '`.query(` in modules outside *.repository.ts',
    rawQueries.reduce((sum, { count }) => sum + count, 0),
    rawQueries.map(({ file, count }) => `${rel(file)} (${count})`),
  ],
  [
    'files outside identity with SQL on identity tables',
    identityTablesElsewhere.length,
    identityTablesElsewhere.map(({ file }) => rel(file)),
  ],
  [
    'identity ↔ auth imports in the lesser direction',
    Math.min(identityToAuth.length, authToIdentity.length),
    [`identity → auth: ${identityToAuth.length}`, `auth → identity: ${authToIdentity.length}`],
  ],
  ['feature modules without unit tests', withoutUnitTests.length, withoutUnitTests],
];

const verbose = process.argv.includes('--verbose');
for (const [label, count, details] of rows) {
  console.log(`${String(count).padStart(5)}  ${label}`);
  if (verbose) for (const line of details) console.log(`         ${line}`);
}
if (process.argv.includes('--strict') && rows.some(([, count]) => count > 0)) process.exit(1);
