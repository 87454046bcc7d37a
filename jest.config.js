// One jest config for every tier; scripts/test.mjs picks tiers with --selectProjects.
// @nestjs 12 ships ESM only: jest's CommonJS runtime cannot require it, so swc
// transforms node_modules/@nestjs (and the few ESM-only deps they pull in) to CommonJS.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, react: { runtime: 'automatic' } },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  transform: { '^.+\\.(t|j|mj)sx?$': swc },
  // sanitize-html 2.17 (the email desk's server-side sanitiser) brings ESM-only htmlparser2 10 and its dom* and entities.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|uid|load-esm|file-type|strtok3|token-types|@tokenizer|sanitize-html|htmlparser2|domhandler|domutils|dom-serializer|domelementtype|entities)/)',
  ],
  moduleNameMapper: {
    '^@centralita/(contracts|domain|channels)$': '<rootDir>/libs/$1/src/index.ts',
    // Node-only code shared by the API and the worker (never bundled by the console).
    '^@centralita/contracts/server$': '<rootDir>/libs/contracts/src/server/index.ts',
  },
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'json'],
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  modulePathIgnorePatterns: ['<rootDir>/apps/.*/dist', '<rootDir>/libs/.*/dist'],
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      setupFilesAfterEnv: ['<rootDir>/test/support/unit-timeout.ts'],
      testMatch: ['**/*.spec.ts', '**/*.spec.tsx'],
    },
    {
      ...common,
      displayName: 'integration',
      setupFilesAfterEnv: ['<rootDir>/test/support/service-timeout.ts'],
      testMatch: ['**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      setupFilesAfterEnv: ['<rootDir>/test/support/service-timeout.ts'],
      testMatch: ['**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'browser',
      setupFilesAfterEnv: ['<rootDir>/test/support/browser-timeout.ts'],
      testMatch: ['**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/support/browser-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
