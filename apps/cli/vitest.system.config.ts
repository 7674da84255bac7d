import { defineConfig } from 'vitest/config';
import unit, { SYSTEM } from './vitest.config.js';

/**
 * The system suites (docs/testing.md): what runs whole processes, packs the packages or drives a browser. They run
 * in their own task (`test:system`), beside the unit and integration suites, and report to their own file.
 */
export default defineConfig({
  test: {
    ...unit.test,
    include: [...SYSTEM],
    exclude: ['**/node_modules/**'],
    reporters: ['default', ['json', { outputFile: 'test-results.system.json' }]],
  },
});
