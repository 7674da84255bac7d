import {
  buildPackage,
  type ComputationPackage,
  type Framework,
  type InputsDocument,
  type InputValue,
  type Problem,
  readJson,
  validateInputs,
} from '@svc/methodology';
import {
  type ApprovedInputsRow,
  approvedWithSha,
  latestPending,
  listSubmissions,
} from '../../store/repositories/approved-inputs.js';
import { findCurrentWithPackage, findProvider } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce } from '../frameworks/frameworks.js';

/**
 * Review before approval: a provider's pending submission, what it changes against the inputs of the indicator in
 * force, and what the engine makes of it under the framework it would be published under. Reads only.
 */

/** A provider's pending submission with the stored document. */
export interface PendingSubmission {
  id: string;
  provider_id: string;
  provider_name: string;
  submitted_by: string;
  submitted_at: string;
  /** SHA-256 of the stored canonical document. */
  inputs_sha256: string;
  document: InputsDocument;
}

/** One input that differs between the published indicator's inputs and the pending ones. */
export interface InputChange {
  input_key: string;
  /** The criterion that reads it under the framework in force; null when that framework has none. */
  criterion_id: string | null;
  change: 'added' | 'removed' | 'changed';
  old_value: InputValue | null;
  old_as_of: string | null;
  new_value: InputValue | null;
  new_as_of: string | null;
}

/** A figure before (the indicator in force; null when there is none) and after (the pending inputs). */
export interface Move<T> {
  old: T | null;
  new: T;
}

export interface CapMove {
  cap_id: string;
  label: string;
}

/** What the engine gives for the pending inputs against the indicator in force; figures as the engine's exact text. */
export interface PendingOutcome {
  evaluation_date: Move<string>;
  final_score: Move<string>;
  risk_band: Move<string>;
  confidence: Move<string>;
  /** Whether the pending inputs clear the publication threshold (publishing would refuse them otherwise). */
  publishable: boolean;
  caps_started: CapMove[];
  caps_stopped: CapMove[];
}

/** The indicator in force a pending submission is compared with. */
export interface PublishedSide {
  risk_indicator_id: string;
  framework_version: string;
  /** The approved submission it was scored from; null when none has its inputs (published with another --date). */
  submission_id: string | null;
}

export interface PendingDiff {
  submission_id: string;
  provider_id: string;
  provider_name: string;
  submitted_by: string;
  submitted_at: string;
  /** The indicator in force; null when the provider has none (every input is then added). */
  published: PublishedSide | null;
  /** The framework the pending inputs would be published under (the one in force today). */
  framework_version: string;
  inputs: InputChange[];
  /** Null when the pending inputs are not valid under that framework (see problems). */
  outcome: PendingOutcome | null;
  problems: Problem[];
}

/** One row of the review before `inputs approve --all-pending`. */
export interface PendingSummary {
  submission_id: string;
  provider_id: string;
  provider_name: string;
  submitted_by: string;
  submitted_at: string;
  inputs_changed: number;
  outcome: PendingOutcome | null;
  problems: Problem[];
}

/** The provider's pending submission; not_found naming it when it is unknown or has nothing pending. */
export async function showPending(ctx: ServiceContext, input: { providerId: string }): Promise<PendingSubmission> {
  const { row, document } = await pendingOf(ctx, input.providerId);
  return {
    id: row.id,
    provider_id: row.provider_id,
    provider_name: document.provider.name,
    submitted_by: row.submitted_by,
    submitted_at: row.submitted_at,
    inputs_sha256: row.inputs_sha256,
    document,
  };
}

/** Every input the provider's pending submission changes against the indicator in force, and the engine's outcome. */
export async function diffPending(ctx: ServiceContext, input: { providerId: string }): Promise<PendingDiff> {
  const pending = await pendingOf(ctx, input.providerId);
  return diffOf(ctx, await frameworkInForce(ctx), pending);
}

/** Every pending submission, by provider name, with the count of changed inputs and the outcome. */
export async function reviewAllPending(ctx: ServiceContext): Promise<PendingSummary[]> {
  const framework = await frameworkInForce(ctx);
  // Oldest first, so the newest pending submission of each provider is the one kept.
  const latest = new Map<string, ApprovedInputsRow>();
  for (const row of await listSubmissions(ctx.store.db, { pendingOnly: true })) latest.set(row.provider_id, row);
  const summaries: PendingSummary[] = [];
  for (const row of latest.values()) summaries.push(summaryOf(await diffOf(ctx, framework, pendingRow(row))));
  return summaries.sort((a, b) => compare(a.provider_name, b.provider_name) || compare(a.provider_id, b.provider_id));
}

function summaryOf(diff: PendingDiff): PendingSummary {
  return {
    submission_id: diff.submission_id,
    provider_id: diff.provider_id,
    provider_name: diff.provider_name,
    submitted_by: diff.submitted_by,
    submitted_at: diff.submitted_at,
    inputs_changed: diff.inputs.length,
    outcome: diff.outcome,
    problems: diff.problems,
  };
}

interface Pending {
  row: ApprovedInputsRow;
  document: InputsDocument;
}

async function pendingOf(ctx: ServiceContext, providerId: string): Promise<Pending> {
  const provider = await findProvider(ctx.store.db, providerId);
  if (!provider) throw new ServiceError('not_found', `no provider ${providerId}`);
  const row = await latestPending(ctx.store.db, providerId);
  if (!row) {
    throw new ServiceError('not_found', `provider ${providerId} (${provider.name}) has no pending submission`);
  }
  return pendingRow(row);
}

/** A stored document: the canonical JSON of a validated one, read back losslessly. */
function pendingRow(row: ApprovedInputsRow): Pending {
  return { row, document: readJson(row.document) as InputsDocument };
}

async function diffOf(ctx: ServiceContext, framework: Framework, { row, document }: Pending): Promise<PendingDiff> {
  const current = await findCurrentWithPackage(ctx.store.db, row.provider_id);
  const published = current ? (readJson(current.package) as ComputationPackage) : null;
  const validation = validateInputs(document, framework);
  return {
    submission_id: row.id,
    provider_id: row.provider_id,
    provider_name: document.provider.name,
    submitted_by: row.submitted_by,
    submitted_at: row.submitted_at,
    published: published && (await publishedSide(ctx, published)),
    framework_version: framework.definition.framework_version,
    inputs: inputChanges(published?.inputs ?? null, document, framework),
    outcome: validation.ok ? outcomeOf(published, buildPackage(validation.document, framework)) : null,
    problems: validation.ok ? [] : validation.problems,
  };
}

/** The indicator in force and the approved submission it was scored from (the one with its inputs' SHA-256). */
async function publishedSide(ctx: ServiceContext, pkg: ComputationPackage): Promise<PublishedSide> {
  const submission = await approvedWithSha(ctx.store.db, pkg.inputs.provider.id, pkg.inputs_sha256);
  return {
    risk_indicator_id: pkg.risk_indicator_id,
    framework_version: pkg.framework.framework_version,
    submission_id: submission?.id ?? null,
  };
}

/** Inputs whose value or as_of differ, added or removed: in framework order, any the framework does not read last. */
function inputChanges(old: InputsDocument | null, pending: InputsDocument, framework: Framework): InputChange[] {
  const criteria = framework.definition.criteria;
  const keys = [...new Set([...Object.keys(old?.inputs ?? {}), ...Object.keys(pending.inputs)])];
  const position = (key: string) => {
    const i = criteria.findIndex((c) => c.input_key === key);
    return i < 0 ? criteria.length : i;
  };
  keys.sort((a, b) => position(a) - position(b) || compare(a, b));
  return keys.flatMap((key): InputChange[] => {
    const before = old?.inputs[key];
    const after = pending.inputs[key];
    if (before && after && before.value === after.value && before.as_of === after.as_of) return [];
    return [
      {
        input_key: key,
        criterion_id: criteria.find((c) => c.input_key === key)?.id ?? null,
        change: !before ? 'added' : !after ? 'removed' : 'changed',
        old_value: before?.value ?? null,
        old_as_of: before?.as_of ?? null,
        new_value: after?.value ?? null,
        new_as_of: after?.as_of ?? null,
      },
    ];
  });
}

function outcomeOf(published: ComputationPackage | null, pending: ComputationPackage): PendingOutcome {
  const was = published?.steps ?? null;
  const now = pending.steps;
  const firedOf = (steps: ComputationPackage['steps'] | null) =>
    (steps?.hard_caps ?? []).filter((c) => c.fired).map((c) => ({ cap_id: c.cap_id, label: c.label }));
  const before = firedOf(was);
  const after = firedOf(now);
  const absent = (caps: CapMove[]) => (cap: CapMove) => !caps.some((c) => c.cap_id === cap.cap_id);
  return {
    evaluation_date: { old: published?.evaluation_date ?? null, new: pending.evaluation_date },
    final_score: { old: was?.final_score ?? null, new: now.final_score },
    risk_band: { old: was?.risk_band ?? null, new: now.risk_band },
    confidence: { old: was?.confidence ?? null, new: now.confidence },
    publishable: now.publishable,
    caps_started: after.filter(absent(before)),
    caps_stopped: before.filter(absent(after)),
  };
}

/** Code-unit order, never locale order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
