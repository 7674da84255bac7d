export {
  EVIDENCE_REASONS,
  type EvidenceAgeing,
  type EvidenceFigures,
  type EvidenceReason,
  type EvidenceSchedule,
  type EvidenceScheduleEntry,
  evidenceSchedule,
  MAX_SCHEDULE_DAYS,
} from './analysis/evidence-schedule.js';
export { type CriterionChange, type IndicatorChanges, indicatorChanges } from './analysis/indicator-changes.js';
export { type NextBandPath, type NextBandStep, overridesOf, pathToNextBand } from './analysis/next-band.js';
export { DECIMAL_SUGGESTION_PLACES, suggestionPlaces } from './analysis/numeric-search.js';
export { applyOverrides } from './analysis/overrides.js';
export {
  type BandExposure,
  type ConcentrationLevel,
  type Holding,
  type PortfolioScore,
  scorePortfolio,
  type WeightedHolding,
} from './analysis/portfolio.js';
export { canonicalJson, canonicalSha256, sha256Hex } from './canonical/canonical-json.js';
export type { Computation } from './compute/compute.js';
export { compute } from './compute/compute.js';
export { figureText } from './decimal.js';
export { anchorOf, type Block } from './docs/blocks.js';
export { methodologyMarkdown } from './docs/methodology-markdown.js';
export { specificationOf } from './docs/specification.js';
export { WORKED_EXAMPLES } from './docs/worked-examples.js';
export { ENGINE } from './engine.js';
export { DCRF_1_0, DCRF_1_0_SIGN_OFF } from './framework/dcrf-1.0.js';
export { assertPublishable, defineFramework, FrameworkError } from './framework/framework.js';
export {
  CURRENT_FRAMEWORK_VERSION,
  currentFramework,
  frameworks,
  frameworkVersionKey,
  getFramework,
} from './framework/registry.js';
export {
  type CapCondition,
  type CriterionDefinition,
  type Framework,
  type FrameworkDefinition,
  FrameworkDefinitionSchema,
  type HardCapDefinition,
  type SignOff,
  SignOffSchema,
} from './framework/schema.js';
export type {
  CriterionScore,
  DecisionFactor,
  DecisionObject,
  HardCapFired,
  RiskIndicator,
  RiskIndicatorOf,
  ScoreCommentary,
} from './indicator.js';
export { PLACES } from './indicator.js';
export {
  AnyInputsDocumentSchema,
  type InputItem,
  type InputsDocument,
  type InputValue,
  inputsDocumentSchema,
  PLANNER_TYPES,
  type PlannerType,
  type Problem,
  type Provider,
  type Validation,
  validateInputs,
} from './inputs/document.js';
export { CLOCK_SKEW_MS, futureDatedProblems, isAfterPresent } from './inputs/future.js';
export { JsonSyntaxError, readJson } from './inputs/read-json.js';
export {
  approvedInputsJsonSchema,
  computationPackageJsonSchema,
  type JsonSchema,
  jsonSchemaText,
} from './json-schema/json-schemas.js';
export { buildPackage, type Scored, scoreWithPackage, serializePackage } from './package/build.js';
export {
  type CapTrace,
  type ComputationPackage,
  ComputationPackageSchema,
  type CriterionTrace,
  PACKAGE_FORMAT,
} from './package/computation-package.js';
export type { Difference } from './package/diff.js';
export { type Verification, verifyPackage } from './package/verify.js';
export { checkInputs, InputsError, score, withEvaluationDate } from './score.js';
export { codePointName, controlCharacterProblem, isPlainText, plainText, showControls, type TextKind } from './text.js';
