/**
 * Counts the persistence and ownership rules of docs/ARCHITECTURE.md from the code (issue 32) and prints them:
 * SQL in controllers, `.query(` outside repository classes, SQL on identity's tables outside identity, the
 * identity ↔ auth imports, which feature modules have unit tests, and (issue 47) import cycles in src, relative
 * require(), eslint-disable for cycles, DataSource.transaction outside the database layer, raw @OnEvent and unit
 * tests outside test/unit/<module>/, and (issue 47.2, one persistence model per module) entity classes of
 * workspaces, chats and workflows that their module's repositories do not use, and casts of row properties in
 * those modules' controllers. `--strict` exits 1 when any count is not zero; CI runs it strict.
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
/** Unit tests live in test/unit/<module>/ (issue 47.8); a spec left in src counts too (and is reported below). */
const unitTests = (name: string): number => {
  const inModule = walkSpecs(path.join(modulesDir, name)).length;
  const unitDir = path.join(root, 'test', 'unit', name);
  return inModule + (fs.existsSync(unitDir) ? walkSpecs(unitDir).length : 0);
};
function walkSpecs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walkSpecs(full);
    return entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}
const withoutUnitTests = featureModules.filter((name) => unitTests(name) === 0);

/** Every .ts file of `src` (specs and migrations included: they are part of the import graph). */
function walkAll(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walkAll(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
const srcFiles = walkAll(path.join(root, 'src')).map((file) => ({
  file,
  text: fs.readFileSync(file, 'utf8'),
}));

/** The import graph of `src` (static, type-only, dynamic and require), relative specifiers resolved to files. */
function resolveImport(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile())
      return candidate;
  return null;
}
const IMPORT_SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;
const graph = new Map<string, string[]>();
for (const { file, text } of srcFiles) {
  const targets = new Set<string>();
  for (const match of text.matchAll(IMPORT_SPECIFIER)) {
    const target = resolveImport(file, match[1]!);
    if (target) targets.add(target);
  }
  graph.set(file, [...targets]);
}
/** Strongly connected components of more than one file (Tarjan): each is one import cycle ("circle"). */
function cycles(): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexes.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexes.get(next)!));
    }
    if (low.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.map(rel).sort());
    }
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return found;
}
const importCycles = cycles();
const relativeRequires = srcFiles
  .map(({ file, text }) => ({ file, count: (text.match(/\brequire\s*\(\s*['"]\.{1,2}\//g) ?? []).length }))
  .filter(({ count }) => count > 0);
const cycleDisables = srcFiles.filter(({ text }) => /eslint-disable[^\n]*(?:circular|cycle)/i.test(text));
const isDatabaseLayer = (file: string): boolean =>
  rel(file).startsWith(path.join('src', 'platform', 'database'));
const directTransactions = srcFiles
  .filter(({ file }) => !isDatabaseLayer(file))
  .map(({ file, text }) => ({
    file,
    count: (text.match(/[dD]ataSource\s*\.\s*transaction\s*\(/g) ?? []).length,
  }))
  .filter(({ count }) => count > 0);
const rawOnEvent = srcFiles
  .filter(({ file }) => !rel(file).startsWith(path.join('src', 'platform', 'events')))
  .map(({ file, text }) => ({ file, count: (text.match(/@OnEvent\s*\(/g) ?? []).length }))
  .filter(({ count }) => count > 0);
const unitRoot = path.join(root, 'test', 'unit');
const misplacedSpecs = [
  ...srcFiles.filter(({ file }) => file.endsWith('.spec.ts')).map(({ file }) => file),
  ...(fs.existsSync(unitRoot)
    ? fs
        .readdirSync(unitRoot)
        .filter((name) => name.endsWith('.spec.ts'))
        .map((name) => path.join(unitRoot, name))
    : []),
];

/**
 * Issue 47.2: in workspaces, chats and workflows the entity classes are the model the repositories query
 * (`Repository<Entity>`, `manager.getRepository(Entity)`, query builders over the entity), and rows are mapped
 * to typed camelCase records inside the repositories. Counted: entity classes no `*.repository.ts` of their
 * module names, and casts of a row's property (`row.id as string`) in those modules' controllers (gateways
 * excluded: they are the realtime layer's). The entity classes and controller files listed in persistence-debt.json
 * `twoModels` have not moved yet: printed, not counted (the list only shrinks).
 */
const ONE_MODEL_MODULES = ['workflows', 'chats', 'workspaces'];
const debt = JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'persistence-debt.json'), 'utf8')) as {
  twoModels?: string[];
};
const pending = new Set(debt.twoModels ?? []);
const unusedEntities: string[] = [];
const rowCasts: { file: string; count: number }[] = [];
for (const name of ONE_MODEL_MODULES) {
  const inModule = files.filter(({ file }) => moduleOf(file) === name);
  const repositoryText = inModule
    .filter(({ file }) => file.endsWith('.repository.ts'))
    .map(({ text }) => text)
    .join('\n');
  for (const { file, text } of inModule.filter(({ file }) => file.endsWith('.entity.ts')))
    for (const match of text.matchAll(/@Entity\([^)]*\)[\s\S]*?export class (\w+)/g))
      if (!usedByRepositories(match[1]!, repositoryText))
        unusedEntities.push(`${pending.has(match[1]!) ? '(pending) ' : ''}${match[1]} (${rel(file)})`);
  for (const { file, text } of inModule.filter(
    ({ file }) => isController(file) && !file.endsWith('.gateway.ts'),
  )) {
    const count = (text.match(/\b\w+(?:\.\w+|\[[^\]\n]+\])\s+as\s+(?!const\b)/g) ?? []).length;
    if (count > 0)
      rowCasts.push({ file: `${pending.has(rel(file)) ? '(pending) ' : ''}${rel(file)}`, count });
  }
}
/** Imported from the module's entities and named again in code (a query target, a `Repository<…>`). */
function usedByRepositories(entity: string, text: string): boolean {
  const imported = new RegExp(`import[^;]*\\b${entity}\\b[^;]*from '[^']*entities[^']*'`).test(text);
  const code = text.replace(/^import[^;]*;/gm, '').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
  return imported && new RegExp(`\\b${entity}\\b`).test(code);
}
const counted = (line: string): boolean => !line.startsWith('(pending)');

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
  ['import cycles in src (issue 47.5)', importCycles.length, importCycles.map((cycle) => cycle.join(' ↔ '))],
  [
    'relative require() in src',
    relativeRequires.reduce((sum, { count }) => sum + count, 0),
    relativeRequires.map(({ file, count }) => `${rel(file)} (${count})`),
  ],
  ['eslint-disable for import cycles', cycleDisables.length, cycleDisables.map(({ file }) => rel(file))],
  [
    'DataSource.transaction outside platform/database (TransactionRunner only)',
    directTransactions.reduce((sum, { count }) => sum + count, 0),
    directTransactions.map(({ file, count }) => `${rel(file)} (${count})`),
  ],
  [
    'raw @OnEvent (use @OnDomainEvent)',
    rawOnEvent.reduce((sum, { count }) => sum + count, 0),
    rawOnEvent.map(({ file, count }) => `${rel(file)} (${count})`),
  ],
  ['unit tests outside test/unit/<module>/', misplacedSpecs.length, misplacedSpecs.map(rel)],
  [
    'entity classes of workspaces/chats/workflows unused by their repositories (issue 47.2)',
    unusedEntities.filter(counted).length,
    unusedEntities,
  ],
  [
    'row property casts in workspaces/chats/workflows controllers (issue 47.2)',
    rowCasts.filter(({ file }) => counted(file)).reduce((sum, { count }) => sum + count, 0),
    rowCasts.map(({ file, count }) => `${file} (${count})`),
  ],
];

const verbose = process.argv.includes('--verbose');
for (const [label, count, details] of rows) {
  console.log(`${String(count).padStart(5)}  ${label}`);
  if (verbose) for (const line of details) console.log(`         ${line}`);
}
if (process.argv.includes('--strict') && rows.some(([, count]) => count > 0)) process.exit(1);
