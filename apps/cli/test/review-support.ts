import { expect } from 'vitest';
import { type Env, embedded, svcIn, svcJsonIn } from './operations.js';
import { pins, readExample, WORKED_EXAMPLE, writeTemp } from './svc.js';

// The review before approval, shared by its in-process suite (review.test.ts) and its terminal suite
// (process/terminal.test.ts).

export const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
export const LOW_ID = '6102dd70-63e8-440e-9dd8-904f07489671';
export const UNKNOWN_ID = '0f0f0f0f-0000-4000-8000-000000000000';

export interface Summary {
  submission_id: string;
  provider_id: string;
  provider_name: string;
  inputs_changed: number;
  outcome: { final_score: { old: string | null; new: string }; risk_band: { old: string | null; new: string } };
}

/** The worked example with its collateral coverage under 1.00 (hard cap HC-02 fires) on newer evidence. */
export async function underCollateralised(): Promise<string> {
  const doc = await readExample();
  Object.assign(doc.inputs.collateral_coverage_ratio as object, { value: 0.95, as_of: '2026-06-15' });
  return writeTemp('under-collateralised.json', doc);
}

/** Checks a command ran, showing its stderr when it did not. */
export async function ok(vars: Env, ...args: string[]): Promise<void> {
  const run = await svcIn(vars, ...args);
  expect(run.status, run.stderr).toBe(0);
}

/** The worked example published (alice submits, bob approves), then carol's under-collateralised version pending. */
export async function publishedThenChanged(): Promise<Env> {
  const vars = await embedded();
  await ok(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
  await ok(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob');
  await ok(vars, 'publish', WORKED_ID);
  await ok(vars, 'inputs', 'import', await underCollateralised(), '--by', 'carol');
  return vars;
}

export const pendingIds = async (vars: Env) =>
  (await svcJsonIn<{ provider_id: string }[]>(vars, 'inputs', 'list', '--pending')).json.map((s) => s.provider_id);

/** The inputs_sha256 of the worked example's pending submission, as `svc inputs show --json` prints it. */
export const showSha = async (vars: Env) =>
  (await svcJsonIn<{ inputs_sha256: string }>(vars, 'inputs', 'show', WORKED_ID)).json.inputs_sha256;
