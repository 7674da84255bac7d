import type { DecisionObject, NextBandPath } from '@svc/methodology';

/**
 * What a memo or the verification page says about the next better band. A capped indicator can sit
 * 0.01 points below the next band while a hard cap holds it there: "0.01 points to MEDIUM" would
 * mislead, so the sentence names the caps that hold the score below the band and, from
 * `path_to_next_band`, the single changes that do reach it (issue 11). The decision object itself
 * is not touched: its bytes belong to the published package.
 */
export function nextBandWords(
  finalScore: number,
  decision: Pick<DecisionObject<number>, 'next_band' | 'points_to_next_band' | 'hard_caps_fired'>,
  path: Pick<NextBandPath, 'next_band' | 'next_band_min_score' | 'steps'> | null,
): string | null {
  const next = path?.next_band ?? decision.next_band;
  const gap = decision.points_to_next_band;
  if (next === undefined || next === null || gap === undefined) return null;
  const min = path?.next_band_min_score ?? Math.round((finalScore + gap) * 100) / 100;
  const holding = decision.hard_caps_fired.filter((c) => c.cap < min).sort((a, b) => a.cap - b.cap);
  const changes = path?.steps
    .filter((s) => s.reachable)
    .map(
      (s) =>
        `${s.input_key} ${String(s.suggested_value)}${s.suggested_as_of ? ` (evidence as of ${s.suggested_as_of})` : ''}`,
    );
  const reach =
    changes === undefined
      ? ''
      : changes.length === 0
        ? ` No change to a single input reaches ${next}.`
        : ` Any one of these changes alone reaches ${next}: ${anyOf(changes)}.`;
  const target = `${next} (${min.toFixed(2)})`;
  if (holding.length === 0) return `${gap.toFixed(2)} points to ${target}.${reach}`;
  const caps = listOf(holding.map((c) => `${c.cap_id} (${c.label}, at most ${c.cap.toFixed(2)})`));
  const one = holding.length === 1;
  return `${one ? 'Hard cap' : 'Hard caps'} ${caps} ${one ? 'holds' : 'hold'} the score at ${finalScore.toFixed(2)}, below ${target}: no other input lifts it there while ${one ? 'it fires' : 'they fire'}.${reach}`;
}

/** Every one of the items: "a", "a and b", "a, b and c". */
function listOf(items: readonly string[]): string {
  return joined(items, 'and');
}

/** Any one of the items, alternatives: "a", "a or b", "a, b or c". */
function anyOf(items: readonly string[]): string {
  return joined(items, 'or');
}

function joined(items: readonly string[], last: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}
