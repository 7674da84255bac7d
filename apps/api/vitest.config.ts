import { defineConfig } from 'vitest/config';

/** The system suites (vitest.system.config.ts): soak, fuzzing, faults with real processes, the browser. */
export const SYSTEM = [
  'test/reliability/soak.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/reliability/faults.test.ts',
  'test/reliability/faults-postgres-states.test.ts',
  'test/browser/**/*.test.ts',
];

export default defineConfig({
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SYSTEM],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
