import { createHash } from 'node:crypto';
import { LIMITATIONS_DISCLOSURE, type PublicScore } from '@svc/contracts';
import type { Clock } from '../../clock.js';
import { PUBLICATION_VERSION, readMeta } from '../../store/repositories/meta.js';
import { listPublicHeadlines, listPublicHeadlinesAsOf } from '../../store/repositories/providers.js';
import type { Store } from '../../store/store.js';
import { watchOf } from '../scores/served.js';
import { type Coded, precompress } from './encoded.js';
import { ServedIndicators } from './served-indicators.js';

export interface SnapshotBody {
  bytes: Buffer;
  etag: string;
  /** The bytes' compressed forms, built once in the background (none for a body served once). */
  coded: Coded;
}

/** A provider's headline as the public list serves it. */
export type Headline = PublicScore;

/** One read of the snapshot: the whole list's bytes, whether they were built before, and the rows behind them. */
export interface SnapshotRead {
  body: SnapshotBody;
  cached: boolean;
  headlines: readonly Headline[];
}

interface Snapshot {
  version: string;
  /** The rows behind the bytes, for searches that read the same data. */
  headlines: readonly Headline[];
  /** The bytes served after the first time (cached: true) and on the building request (cached: false). */
  cached: SnapshotBody;
  fresh: SnapshotBody;
}

/** A public list as of a past instant, built from the history (see PublicSnapshot.asOf), as kept. */
interface Dated {
  headlines: readonly Headline[];
  cached: SnapshotBody;
}

/** How many lists as of past instants an instance keeps (the most recently asked); each is about the size of the list. */
const DATED_KEPT = 8;

/** How many pages of each list an instance keeps (the most recently asked); a page is at most 500 headlines. */
const PAGES_KEPT = 64;

/**
 * The public scores envelope, serialised once per publication. Each instance
 * checks the store's publication version at most once per `checkEveryMs`
 * (a publication elsewhere shows within that time) and at once after a local
 * publication (`invalidate`).
 */
export class PublicSnapshot {
  private snapshot: Snapshot | null = null;
  private checkedAt = 0;
  private building: Promise<SnapshotRead> | null = null;
  /** Lists as of past instants, by instant, least recently asked first; all built under `datedVersion`. */
  private readonly dated = new Map<string, Promise<Dated>>();
  private datedVersion: string | null = null;
  /** Pages by list (its headlines: one array per version and instant) and key, least recently asked first. */
  private readonly pages = new WeakMap<readonly Headline[], Map<string, SnapshotBody>>();
  /**
   * How many compressed forms of lists and pages this instance has built (one per coding per body): read by the
   * tests that hold the list is compressed once per publication version, not per request.
   */
  compressions = 0;
  private readonly compressed = () => {
    this.compressions++;
  };
  /** The keyed form of the indicators in force, kept under the same version as the list (decision 0036). */
  readonly indicators = new ServedIndicators(() => this.version());

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly checkEveryMs = 1000,
  ) {}

  invalidate(): void {
    this.checkedAt = 0;
  }

  /** The headlines of every current indicator, by name, as fresh as `get()`. */
  async headlines(): Promise<readonly Headline[]> {
    await this.get();
    return this.snapshot?.headlines ?? [];
  }

  /** The publication version the list was last checked against, as fresh as `get()`. */
  async version(): Promise<string> {
    await this.get();
    return this.snapshot?.version ?? '0';
  }

  async get(): Promise<SnapshotRead> {
    const now = this.clock.now().getTime();
    if (this.snapshot && now - this.checkedAt < this.checkEveryMs) {
      return { body: this.snapshot.cached, cached: true, headlines: this.snapshot.headlines };
    }
    if (!this.building) {
      this.building = this.refresh(now).finally(() => {
        this.building = null;
      });
    }
    return this.building;
  }

  private async refresh(now: number): Promise<SnapshotRead> {
    const version = (await readMeta(this.store.db, PUBLICATION_VERSION)) ?? '0';
    this.checkedAt = now;
    if (this.snapshot && this.snapshot.version === version) {
      return { body: this.snapshot.cached, cached: true, headlines: this.snapshot.headlines };
    }
    const { headlines, cached, fresh } = listing(await listPublicHeadlines(this.store.db), this.compressed);
    this.snapshot = { version, headlines, cached, fresh };
    return { body: fresh, cached: false, headlines };
  }

  /**
   * The public list as of a past instant (`asOf`, ISO 8601 UTC with milliseconds): the headlines in force then, from
   * the history, in the same form and order as the current list, built once per instant and publication version.
   * The history before a past instant never changes; the version is kept all the same, since the descriptive fields
   * are the providers' as recorded now. The building request reads `cached: false`, every later one `cached: true`.
   */
  async asOf(asOf: string): Promise<SnapshotRead> {
    await this.get();
    const version = this.snapshot?.version ?? null;
    if (version !== this.datedVersion) {
      this.dated.clear();
      this.datedVersion = version;
    }
    const kept = this.dated.get(asOf);
    if (kept) {
      // The most recently asked go last: the first is the one let go.
      this.dated.delete(asOf);
      this.dated.set(asOf, kept);
      const { cached, headlines } = await kept;
      return { body: cached, cached: true, headlines };
    }
    const building = listPublicHeadlinesAsOf(this.store.db, asOf).then((rows) => listing(rows, this.compressed));
    const keeping = building.then(({ headlines, cached }): Dated => ({ headlines, cached }));
    this.dated.set(asOf, keeping);
    for (const [oldest] of this.dated) {
      if (this.dated.size <= DATED_KEPT) break;
      this.dated.delete(oldest);
    }
    // A build that fails (the store away) is not kept: the next request tries again.
    keeping.catch(() => {
      if (this.dated.get(asOf) === keeping) this.dated.delete(asOf);
    });
    const { fresh, headlines } = await building;
    return { body: fresh, cached: false, headlines };
  }

  /**
   * A page of a list (`headlines`, as a read gave them), named by a key of everything else its bytes depend on:
   * built by `build` and compressed once per list, so once per publication version (and instant). A list keeps its
   * PAGES_KEPT most recently asked pages, and they go when it does.
   */
  page(headlines: readonly Headline[], key: string, build: () => Buffer): SnapshotBody {
    let pages = this.pages.get(headlines);
    if (!pages) {
      pages = new Map();
      this.pages.set(headlines, pages);
    }
    const kept = pages.get(key);
    if (kept) {
      pages.delete(key);
      pages.set(key, kept);
      return kept;
    }
    const bytes = build();
    const body: SnapshotBody = { bytes, etag: strongEtag(bytes), coded: {} };
    precompress(bytes, body.coded, this.compressed);
    pages.set(key, body);
    for (const [oldest] of pages) {
      if (pages.size <= PAGES_KEPT) break;
      pages.delete(oldest);
    }
    return body;
  }
}

/** A headline's row: now, or as of an instant (whose outlook is null if no action had taken effect by then). */
type HeadlineRow = Omit<Awaited<ReturnType<typeof listPublicHeadlines>>[number], 'outlook'> & {
  outlook: string | null;
};

/** A provider's headline as the public lists serve it, from its row and the indicator's (now, or as of an instant). */
function headlineOf(r: HeadlineRow): Headline {
  return {
    id: r.id,
    name: r.name,
    planner_type: r.planner_type as Headline['planner_type'],
    provider_subtype: r.provider_subtype,
    yield_min: r.yield_min,
    yield_max: r.yield_max,
    final_score: r.final_score,
    risk_band: r.risk_band as Headline['risk_band'],
    scored_at: r.scored_at,
    outlook: (r.outlook ?? 'STABLE') as Headline['outlook'],
    watch: watchOf(r),
  };
}

/**
 * A whole public list: its headlines in position order and its bytes, as served after the first time (compressed
 * once, in the background; `compressed` is called per form built) and on it.
 */
function listing(
  rows: readonly HeadlineRow[],
  compressed: () => void,
): {
  headlines: Headline[];
  cached: SnapshotBody;
  fresh: SnapshotBody;
} {
  const data = rows.map(headlineOf);
  // In position order by this process's own comparison, whatever the store's collation, so a page's cursor
  // is found by the same rule the list was sorted by.
  data.sort(byPosition);
  const body = (cached: boolean): SnapshotBody => {
    const bytes = Buffer.from(JSON.stringify({ data, limitations_disclosure: LIMITATIONS_DISCLOSURE, cached }));
    return { bytes, etag: strongEtag(bytes), coded: {} };
  };
  const cached = body(true);
  precompress(cached.bytes, cached.coded, compressed);
  return { headlines: data, cached, fresh: body(false) };
}

/** The newest evaluation among these headlines (the data freshness of GET /api/v1/status and the ratings page). */
export function newestScoredAt(headlines: readonly Headline[]): string | null {
  let newest: string | null = null;
  for (const h of headlines) if (newest === null || h.scored_at > newest) newest = h.scored_at;
  return newest;
}

/** Whole seconds from an evaluation to now (never negative); null when nothing is published. */
export function ageSeconds(latest: string | null, now: Date): number | null {
  return latest === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(latest)) / 1000));
}

/** A strong ETag of these bytes: 32 characters of their SHA-256. */
export function strongEtag(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

/** Name, then id, by UTF-16 code units: the order of the public list and of its pages. */
export function byPosition(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The headlines after a position (all when none), `limit` of them, and whether more follow. */
export function headlinesAfter(
  headlines: readonly Headline[],
  after: { name: string; id: string } | undefined,
  limit: number,
): { page: Headline[]; more: boolean } {
  // The first headline past the position, by binary search: the position's own provider may be gone since.
  let start = 0;
  if (after) {
    let end = headlines.length;
    while (start < end) {
      const mid = (start + end) >>> 1;
      if (byPosition(headlines[mid] as Headline, after) <= 0) start = mid + 1;
      else end = mid;
    }
  }
  return { page: headlines.slice(start, start + limit), more: start + limit < headlines.length };
}
