export { DEMO_FRAMEWORK_VERSION, DEMO_PROVIDERS, DEMO_ROUNDS, type DemoRound } from './documents.js';
export { DEMO_ISSUANCES } from './issuances.js';
export { type SeededProvider, type SeedReport, seedDemo } from './seed.js';
