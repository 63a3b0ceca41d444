// ESLint (flat config): typescript-eslint with type information; zero warnings allowed (npm run lint).
import eslint from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

// Persistence and ownership (docs/ARCHITECTURE.md, issue 32): SQL lives in repository classes
// (`*.repository.ts`); controllers never touch the database; SQL naming identity's tables lives in identity.
// The files in scripts/persistence-debt.json have not moved yet: the lists only shrink
// (`npm run architecture:counts` prints the figures).
const persistenceDebt = JSON.parse(readFileSync(new URL('./scripts/persistence-debt.json', import.meta.url), 'utf8'));
const ENTITY_MANAGER_CALL = /^(find|findOne|findOneBy|findBy|save|insert|update|delete|getRepository|count|exists|upsert|remove)$/;
const IDENTITY_TABLE_SQL =
  /\b(FROM|JOIN|INTO|UPDATE)\s+"?(users|organizations|organization_members|teams|team_members|api_tokens)"?(\s|$|,|\))/i;
const persistence = {
  rules: {
    'sql-in-repositories': {
      meta: { type: 'problem', schema: [] },
      create: (context) => ({
        CallExpression(node) {
          const callee = node.callee;
          if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
          const name = callee.property.name;
          const managerCall =
            ENTITY_MANAGER_CALL.test(name) &&
            callee.object.type === 'MemberExpression' &&
            callee.object.property.type === 'Identifier' &&
            callee.object.property.name === 'manager';
          if (name === 'query' || name === 'createQueryBuilder' || managerCall)
            context.report({
              node,
              message: 'SQL belongs in a *.repository.ts class of the owning module (docs/ARCHITECTURE.md, persistence).',
            });
        },
      }),
    },
    'identity-tables': {
      meta: { type: 'problem', schema: [] },
      create: (context) => {
        const check = (node, text) => {
          if (typeof text === 'string' && IDENTITY_TABLE_SQL.test(text))
            context.report({
              node,
              message: "Identity owns its tables: call an identity service (docs/ARCHITECTURE.md, ownership).",
            });
        };
        return {
          Literal: (node) => check(node, node.value),
          TemplateElement: (node) => check(node, node.value.raw),
        };
      },
    },
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '**/*.js', 'eslint.config.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unsafe-function-type': 'off', // entity/migration registries hold class constructors
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'always' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // Layers (docs/ARCHITECTURE.md): platform imports only platform; api imports api and platform;
  // a module imports its own files, platform, api, and the core modules identity and auth;
  // the composition root (src/*.ts) imports anything.
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.js'] } },
      'boundaries/include': ['src/**/*.ts'],
      'boundaries/elements': [
        { type: 'platform', pattern: 'src/platform' },
        { type: 'api', pattern: 'src/api' },
        { type: 'core-module', pattern: 'src/modules/(identity|auth)', capture: ['name'] },
        { type: 'module', pattern: 'src/modules/*', capture: ['name'] },
        { type: 'program', pattern: 'src/(agent|provisioner)' },
        { type: 'root', pattern: 'src' }, // the composition root: src/*.ts (matched last)
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message: '{{from.type}} must not import {{to.type}} (docs/ARCHITECTURE.md, layers)',
          policies: [
            { from: { element: { type: 'platform' } }, allow: { to: { element: { type: 'platform' } } } },
            { from: { element: { type: 'api' } }, allow: { to: { element: { types: { anyOf: ['api', 'platform'] } } } } },
            {
              from: { element: { type: 'core-module' } },
              allow: { to: { element: { types: { anyOf: ['platform', 'api', 'core-module'] } } } },
            },
            {
              from: { element: { type: 'module' } },
              allow: { to: { element: { types: { anyOf: ['platform', 'api', 'core-module'] } } } },
            },
            {
              from: { element: { type: 'module' } },
              allow: { to: { element: { type: 'module', captured: { name: '{{from.captured.name}}' } } } },
            },
            { from: { element: { type: 'program' } }, allow: { to: { element: { types: { anyOf: ['program', 'platform'] } } } } },
            { from: { element: { type: 'root' } }, allow: { to: { element: { types: { anyOf: ['root', 'platform', 'api', 'core-module', 'module', 'program'] } } } } },
          ],
        },
      ],
    },
  },
  {
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*.repository.ts', 'src/modules/**/migrations/**', ...persistenceDebt.sqlOutsideRepositories],
    plugins: { persistence },
    rules: { 'persistence/sql-in-repositories': 'error' },
  },
  {
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/identity/**', 'src/modules/**/migrations/**', ...persistenceDebt.identityTablesOutsideIdentity],
    plugins: { persistence },
    rules: { 'persistence/identity-tables': 'error' },
  },
  {
    files: ['src/modules/**/controllers/**/*.ts', 'src/modules/**/*.controller.ts'],
    ignores: persistenceDebt.controllersWithDatabase,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['typeorm', '@nestjs/typeorm'].map((name) => ({
            name,
            message: 'Controllers never touch the database (docs/ARCHITECTURE.md, persistence).',
          })),
        },
      ],
    },
  },
);
