// ESLint (flat config): typescript-eslint with type information; zero warnings allowed (npm run lint).
import eslint from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

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
);
