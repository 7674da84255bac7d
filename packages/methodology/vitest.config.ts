import { defineConfig } from 'vitest/config';

/** The system suites (vitest.system.config.ts): the package packed and installed as a user installs it. */
export const SYSTEM = ['test/published-package.test.ts'];

export default defineConfig({
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SYSTEM],
    testTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
