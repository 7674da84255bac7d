import { placesOf, TEMPLATES, type TemplateName } from '../decision/templates.js';
import type { CapCondition, FrameworkDefinition } from '../framework/schema.js';
import type { Block } from './blocks.js';

/** The specification's blocks, written short. */
export const h2 = (text: string): Block => ({ kind: 'heading', level: 2, text });
export const h3 = (text: string): Block => ({ kind: 'heading', level: 3, text });
export const p = (text: string): Block => ({ kind: 'paragraph', text });
export const ul = (...items: string[]): Block => ({ kind: 'list', items });
export const table = (head: string[], rows: string[][]): Block => ({ kind: 'table', head, rows });
export const json = (value: unknown): Block => ({
  kind: 'code',
  language: 'json',
  text: JSON.stringify(value, null, 2),
});
export const code = (text: string) => `\`${text}\``;

/** The `stale` parts of the cap conditions, with their cap: HC-07's "age_days > 365" is one. */
export function staleConditions(fw: FrameworkDefinition): { capId: string; over: number }[] {
  const of = (cond: CapCondition): number[] =>
    cond.op === 'all' ? cond.of.flatMap(of) : cond.op === 'stale' ? [cond.age_days_over] : [];
  return fw.hard_caps.flatMap((cap) => of(cap.condition).map((over) => ({ capId: cap.id, over })));
}

/** "HC-07’s `age_days_over` (365 days)", for every stale condition; empty when no cap has one. */
export function staleCapsText(fw: FrameworkDefinition): string {
  return staleConditions(fw)
    .map((s) => `${s.capId}’s \`age_days_over\` (${s.over} days)`)
    .join(' and ');
}

/** The operators of the cap conditions, in the order of section 5's table. */
export const CONDITION_OPS = ['eq', 'in', 'lt', 'gt', 'all', 'stale'] as const;

/** What a reimplementation from this page most often gets wrong (issue 31), each pointing to its section. */
/** The places a `fixed` slot of a template is written with. */
export function slotPlaces(name: TemplateName, slot: string, fw: FrameworkDefinition): number {
  const format = TEMPLATES[name].slots[slot]?.format;
  if (format?.kind !== 'fixed') throw new RangeError(`{${slot}} of ${name} is not a fixed-place slot`);
  return placesOf(format, fw);
}

/** Which figure each rounding applies to, and the places each figure is written with (issue 31). */
