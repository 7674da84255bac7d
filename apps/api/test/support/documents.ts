import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  currentFramework,
  type InputsDocument,
  type InputValue,
  type RiskIndicator,
  readJson,
  scoreWithPackage,
  validateInputs,
} from '@svc/methodology';
import type { IssuanceFields } from '../../src/services/issuances/issuances.js';

/** The published example approved-inputs documents, and variations of them, for every suite. */

export const framework = currentFramework();

export type ExampleName = 'worked-example' | 'low-band' | 'multiple-caps' | 'missing-inputs' | 'stale-evidence';

const EXAMPLES = new URL('../../../../examples/dcrf-1.0/', import.meta.url);

/** An approved-inputs document as JSON carries it, before validation. */
export interface InputsDoc {
  provider: {
    id: string;
    name: string;
    planner_type: string;
    provider_subtype: string;
    yield_min: number;
    yield_max: number;
  };
  evaluation_date: string;
  inputs: Record<string, { value: unknown; source?: string; [field: string]: unknown }>;
}

/** An example's text, exactly as the file holds it. */
export function exampleText(name: ExampleName): string {
  return readFileSync(new URL(`${name}.json`, EXAMPLES), 'utf8');
}

/** A fresh copy of an example document. */
export function example(name: ExampleName): InputsDoc {
  return readJson(exampleText(name)) as InputsDoc;
}

/** Provider ids of the examples, as written in the documents. */
export const WORKED_ID = example('worked-example').provider.id;
export const LOW_BAND_ID = example('low-band').provider.id;
export const CAPS_ID = example('multiple-caps').provider.id;
export const STALE_ID = example('stale-evidence').provider.id;

/** A well-formed provider id that no test publishes. */
export const UNKNOWN_PROVIDER_ID = '0f0f0f0f-0000-4000-8000-000000000000';

export interface Variation {
  provider?: Partial<InputsDoc['provider']>;
  /** Replaces input values by input key. */
  values?: Record<string, InputValue>;
  /** Replaces the `source` text of every input: a new indicator id with the same score. */
  source?: string;
  evaluationDate?: string;
}

/** A varied copy of a document. */
export function vary(doc: InputsDoc, variation: Variation): InputsDoc {
  const copy = structuredClone(doc);
  Object.assign(copy.provider, variation.provider ?? {});
  if (variation.evaluationDate !== undefined) copy.evaluation_date = variation.evaluationDate;
  for (const [key, value] of Object.entries(variation.values ?? {})) {
    const item = copy.inputs[key];
    if (!item) throw new Error(`the document has no input ${key}`);
    item.value = value;
  }
  if (variation.source !== undefined) for (const item of Object.values(copy.inputs)) item.source = variation.source;
  return copy;
}

/** The same evidence for another provider: `n` picks a new id, the name gets a suffix unless given. */
export function variantOf(doc: InputsDoc, n: number, provider: Partial<InputsDoc['provider']> = {}): InputsDoc {
  return vary(doc, {
    provider: {
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      name: `${doc.provider.name} ${n}`,
      ...provider,
    },
  });
}

/** The document with one approved input's value changed. */
export function withInput(doc: InputsDoc, key: string, value: InputValue): InputsDoc {
  return vary(doc, { values: { [key]: value } });
}

/** A document (JSON text or value) validated as the publishing service expects it; throws when it is invalid. */
export function validated(document: unknown): InputsDocument {
  const v = validateInputs(typeof document === 'string' ? readJson(document) : document, framework);
  if (!v.ok) throw new Error(`invalid test document: ${JSON.stringify(v.problems)}`);
  return v.document;
}

/** An example document, varied, then validated. */
export function exampleDocument(name: ExampleName, variation: Variation = {}): InputsDocument {
  return validated(vary(example(name), variation));
}

/** An example (the worked one unless named) under a new provider id, varied, validated. */
export function newProvider(variation: Variation = {}, name: ExampleName = 'worked-example'): InputsDocument {
  return exampleDocument(name, { ...variation, provider: { id: randomUUID(), ...variation.provider } });
}

/** What the engine makes of a document, computed here independently of the service. */
export function engineIndicator(doc: InputsDoc): RiskIndicator {
  return scoreWithPackage(validated(doc), framework).indicator;
}

/** An issuance as an operator adds it (`svc issuances add`): the fields every issuance test starts from. */
export const ISSUANCE: IssuanceFields = {
  issuer_name: 'Example Sats Lending',
  instrument_name: '8.00% Series A Preferred',
  type: 'preferred_share',
  status: 'ANNOUNCED',
  currency: 'USD',
  target_amount: '25000000.50',
};
