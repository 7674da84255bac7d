import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    // Set-up hooks start real processes (seed, serve): on a loaded machine that takes more than the 10 s default.
    hookTimeout: 120_000,
    // Lets the worker's event loop turn between tests (test/setup.ts).
    setupFiles: ['test/setup.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
