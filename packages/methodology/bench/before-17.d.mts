// Types of before-17.mjs for the TypeScript benches that import it (apps/api/bench/scale.ts).

export const BEFORE_17: string;
export const ISSUE_SECONDS: { before: number; goal: number };
export function engineBefore17(): Promise<{ entry: string; why: null } | { entry: null; why: string }>;
export function alternate(
  entries: string[],
  count: number,
  rounds: number,
): Promise<{ ratio: number; perDocument: number[]; same: boolean }>;
export function yardstick(entry: string, count: number, passes: number): Promise<number>;
