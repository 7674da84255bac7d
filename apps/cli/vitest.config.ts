import { defineConfig } from 'vitest/config';

/** The system suites (vitest.system.config.ts): `svc` as a process of its own, where only a process shows it. */
export const SYSTEM = ['test/process/**/*.test.ts'];

export default defineConfig({
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SYSTEM],
    testTimeout: 60_000,
    // Set-up hooks start real processes (serve): on a loaded machine that takes more than the 10 s default.
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
