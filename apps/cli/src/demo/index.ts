export {
  DEMO_ANALYST,
  DEMO_APPROVER,
  DEMO_FRAMEWORK_VERSION,
  DEMO_PROVIDERS,
  DEMO_RATING_ACTIONS,
  DEMO_ROUNDS,
  type DemoRound,
} from './documents.js';
export { DEMO_ISSUANCES } from './issuances.js';
export { type SeededProvider, type SeedReport, seedDemo } from './seed.js';
