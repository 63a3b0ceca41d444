/** Jest: @swc/jest transpiles TypeScript and Nest's ESM packages; without DATABASE_URL each e2e file gets its own PGlite. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

const common = {
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|file-type|load-esm|@tokenizer|strtok3|token-types|uint8array-extras)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // DATABASE_URL, or a fresh embedded PGlite per test file (test/helpers/database-environment.ts).
      testEnvironment: '<rootDir>/test/helpers/database-environment.ts',
    },
  ],
  // Two workers on two cores: a hook that starts a workspace (provisioner, sandbox, agent) can take twice as long.
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
  // Two workers: most files wait on I/O (HTTP, git, the database); the files that start provisioners, agents or
  // server processes run one at a time (test/helpers/database-environment.ts), spread among the others.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/helpers/test-sequencer.js',
  // One temporary root per run (TMPDIR for the workers and their child processes), removed at the end.
  globalSetup: '<rootDir>/test/helpers/temp-root-setup.js',
  globalTeardown: '<rootDir>/test/helpers/temp-root-teardown.js',
};
