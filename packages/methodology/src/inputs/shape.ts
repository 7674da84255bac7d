/**
 * The shape of an approved-inputs document as the engine reads it once valid (methodology section 2): the types the
 * schema (document.ts) and the hand check of valid documents (valid-document.ts) both produce.
 */

export const PLANNER_TYPES = ['btc', 'fiat', 'stablecoin'] as const;
export type PlannerType = (typeof PLANNER_TYPES)[number];

export type InputValue = string | number | boolean;

export interface InputItem {
  value: InputValue;
  as_of: string;
  source: string;
  approved_by: string;
  approved_at: string;
}

export interface Provider {
  id: string;
  name: string;
  planner_type: PlannerType;
  provider_subtype: string;
  yield_min: number;
  yield_max: number;
}

/** An approved-inputs document (methodology section 2). */
export interface InputsDocument {
  provider: Provider;
  evaluation_date: string;
  inputs: Record<string, InputItem>;
}
