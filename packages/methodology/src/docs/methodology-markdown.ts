import type { Framework } from '../framework/schema.js';
import { markdownOf } from './blocks.js';
import { specificationOf } from './specification.js';

/**
 * The methodology page, docs/methodology/dcrf-<version>.md: the specification generated from the framework
 * data, the text templates and the engine, so the published rules are the ones the engine follows.
 */
export function methodologyMarkdown(framework: Framework): string {
  return markdownOf(specificationOf(framework));
}
