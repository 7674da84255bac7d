import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    // Set-up hooks start real processes (serve): on a loaded machine that takes more than the 10 s default.
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
