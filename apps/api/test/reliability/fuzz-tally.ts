/** The status distribution of a fuzz run, per engine and operation, for the report printed at its end. */

type Status = number | 'none';

export class FuzzTally {
  private readonly counts = new Map<string, Map<string, Map<Status, number>>>();
  private readonly timings = new Map<string, { requests: number; ms: number }>();
  private slowest = { ms: 0, where: '' };

  count(engine: string, operationId: string, status: Status, ms: number): void {
    const byOperation = this.counts.get(engine) ?? new Map<string, Map<Status, number>>();
    this.counts.set(engine, byOperation);
    const byStatus = byOperation.get(operationId) ?? new Map<Status, number>();
    byOperation.set(operationId, byStatus);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (ms > this.slowest.ms) this.slowest = { ms, where: `${engine} ${operationId}` };
  }

  timed(engine: string, requests: number, ms: number): void {
    this.timings.set(engine, { requests, ms });
  }

  report(seed: number): string {
    const lines = [`fuzz report (seed ${seed}, replay with FC_SEED=${seed})`];
    const all = new Map<Status, number>();
    const byOperation = new Map<string, Map<Status, number>>();
    for (const [engine, operations] of this.counts) {
      const engineTotal = new Map<Status, number>();
      for (const [operationId, statuses] of operations) {
        const mine = byOperation.get(operationId) ?? new Map<Status, number>();
        byOperation.set(operationId, mine);
        for (const [status, n] of statuses) {
          add(all, status, n);
          add(engineTotal, status, n);
          add(mine, status, n);
        }
      }
      const t = this.timings.get(engine);
      const rate = t ? ` in ${(t.ms / 1000).toFixed(1)} s (${Math.round(t.requests / (t.ms / 1000))}/s)` : '';
      lines.push(`  ${engine}: ${sum(engineTotal)} requests${rate}: ${distribution(engineTotal)}`);
    }
    const total = sum(all);
    const gated = [401, 403, 429].reduce((n, s) => n + (all.get(s) ?? 0), 0);
    const ok = [...all].filter(([s]) => typeof s === 'number' && s < 300).reduce((n, [, c]) => n + c, 0);
    lines.push(`  all: ${total} requests: ${distribution(all)}`);
    lines.push(
      `  past key, tier and limit: ${pct(total - gated, total)}; 2xx: ${pct(ok, total)}; ` +
        `slowest answer ${Math.round(this.slowest.ms)} ms (${this.slowest.where})`,
    );
    for (const [operationId, statuses] of [...byOperation].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`    ${operationId.padEnd(18)} ${distribution(statuses)}`);
    }
    return lines.join('\n');
  }
}

function add(map: Map<Status, number>, status: Status, n: number): void {
  map.set(status, (map.get(status) ?? 0) + n);
}

const sum = (map: Map<Status, number>) => [...map.values()].reduce((a, b) => a + b, 0);

const pct = (n: number, total: number) => `${total === 0 ? 0 : ((100 * n) / total).toFixed(1)}%`;

function distribution(map: Map<Status, number>): string {
  const total = sum(map);
  return [...map]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([status, n]) => `${status}: ${n} (${pct(n, total)})`)
    .join(', ');
}
