/**
 * Served Risk Indicators (the form `servedIndicatorJson` builds) kept as bytes under the publication version they
 * were read under, so a keyed read of the indicator in force now, or of a page of them, is a lookup rather than a
 * store read and a rebuild (decision 0036). Every write that changes a served form (a publication, a withdrawal, a
 * rating action, a signed statement) bumps the version in its transaction; the version is read as the public
 * snapshot reads it, so a change made by another instance shows within the snapshot's window, and one made here at
 * once. Bounded by bytes: past the budget the oldest entries are let go.
 */
export class ServedIndicators {
  private version: string | null = null;
  private readonly rows: Kept<ServedRow>;
  private readonly pages: Kept<ServedPage>;

  constructor(
    /** The publication version, as fresh as the public snapshot. */
    private readonly versionNow: () => Promise<string>,
    /**
     * Bytes kept at most: 32 MB of rows (about 2,700 indicators of 12 KB); 64 MB of pages, about 27 pages of 100
     * with every field, each counted as 2.4 MB (its rows and its answer assembled from them). With 32 MB of pages
     * 13 were kept, and clients paging through the list of 10,000 in turns, 16 pages apart, found none of them
     * kept: the first kept is the first let go (decision 0043).
     */
    budgets: { rows: number; pages: number } = { rows: 32 * 1024 * 1024, pages: 64 * 1024 * 1024 },
  ) {
    this.rows = new Kept(budgets.rows);
    this.pages = new Kept(budgets.pages);
  }

  /** The version the kept entries belong to, after dropping them all if the store's has moved on. */
  async current(): Promise<string> {
    const version = await this.versionNow();
    if (version !== this.version) {
      this.rows.clear();
      this.pages.clear();
      this.version = version;
    }
    return version;
  }

  /**
   * A provider's row as kept (a lowercase id), or undefined: the one in force now, or with `instant` the one in
   * force at that instant (as stored: `pastInstant`'s form).
   */
  row(providerId: string, instant?: string): ServedRow | undefined {
    return this.rows.get(rowKey(providerId, instant));
  }

  /** Keeps a row read under `version`, unless the version has moved on since (it would outlive its data). */
  keepRow(version: string, providerId: string, row: ServedRow, instant?: string): void {
    if (version === this.version) this.rows.keep(rowKey(providerId, instant), row, row.bytes.length);
  }

  /** A page as kept, by its key (see pageKey), or undefined. */
  page(key: string): ServedPage | undefined {
    return this.pages.get(key);
  }

  /**
   * Keeps a page read under `version`, unless the version has moved on since. Counted twice: once for its rows, once
   * for the answer assembled from them when it is first served whole (assembledPage).
   */
  keepPage(version: string, key: string, page: ServedPage): void {
    if (version === this.version) this.pages.keep(key, page, 2 * page.rows.reduce((n, r) => n + r.bytes.length, 0));
  }
}

/** A row's key: the provider's id, and the instant after a space for a row as of an instant. */
const rowKey = (providerId: string, instant: string | undefined) =>
  instant === undefined ? providerId : `${providerId} ${instant}`;

/** Entries kept by key within a budget of bytes: the first kept is the first let go; a key kept once stays as it is. */
class Kept<V> {
  private readonly entries = new Map<string, { value: V; size: number }>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  keep(key: string, value: V, size: number): void {
    if (this.entries.has(key)) return;
    this.entries.set(key, { value, size });
    this.bytes += size;
    for (const [k, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.bytes -= oldest.size;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** A served indicator: its bytes, and (once asked for) its top-level fields, each as `"name":value` text. */
export class ServedRow {
  private fields: Map<string, string> | null = null;

  constructor(readonly bytes: Buffer) {}

  static of(json: string): ServedRow {
    return new ServedRow(Buffer.from(json));
  }

  /**
   * The indicator with only the `selected` top-level fields, in the order of the full form; a field the indicator
   * lacks (one published before the field existed) is left out.
   */
  select(selected: ReadonlySet<string>): string {
    if (!this.fields) {
      const parsed = JSON.parse(this.bytes.toString()) as Record<string, unknown>;
      this.fields = new Map(Object.entries(parsed).map(([k, v]) => [k, `${JSON.stringify(k)}:${JSON.stringify(v)}`]));
    }
    const parts: string[] = [];
    for (const [name, text] of this.fields) if (selected.has(name)) parts.push(text);
    return `{${parts.join(',')}}`;
  }
}

/** A page of the list as served now: its rows in order and the next page's cursor. */
export interface ServedPage {
  rows: readonly ServedRow[];
  nextCursor: string | null;
}

const assembled = new WeakMap<ServedPage, { tail: string; body: Buffer }>();

/**
 * The whole answer of a kept page with every field: its rows spliced into the envelope once, then the same bytes for
 * every request of the page, while the page is kept (a publication drops it) and the envelope's own part after the
 * rows (`tail`: the framework in force, the next cursor) is the same. A page of 100 is 1.2 MB: splicing it per
 * request was a tenth of the route's time, and as much again in collecting the copies (decision 0043).
 */
export function assembledPage(page: ServedPage, tail: string, assemble: () => Buffer): Buffer {
  const known = assembled.get(page);
  if (known !== undefined && known.tail === tail) return known.body;
  const body = assemble();
  assembled.set(page, { tail, body });
  return body;
}

/** Which page a request asks for: the planner type, the position after which it starts, its size. */
export function pageKey(input: {
  plannerType?: string | undefined;
  after?: { name: string; id: string } | undefined;
  limit: number;
}): string {
  return JSON.stringify([input.plannerType ?? null, input.after?.name ?? null, input.after?.id ?? null, input.limit]);
}
