import { defineFramework, type Framework, FrameworkError, frameworks, type SignOff } from '@svc/methodology';
import type { Clock } from '../../clock.js';
import { listReleases as listReleaseRows } from '../../store/repositories/framework-releases.js';
import type { FrameworkReleasesTable } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** A framework release as recorded: a version signed off, effective from a date. */
export type FrameworkRelease = FrameworkReleasesTable;

/**
 * The frameworks this process knows (the engine's built-in ones, and in tests a test framework besides) and the
 * releases recorded in the store, read at most once per `checkEveryMs` by the clock (a release recorded by another
 * process shows within that time) and at once after a local `publishFramework` (`invalidate`). A failed read keeps
 * the releases last read, so a status answer during a store outage still names the framework in force.
 */
export class FrameworkReleases {
  readonly known: ReadonlyMap<string, Framework>;
  private readonly checkEveryMs: number;
  private releases: readonly FrameworkRelease[] | null = null;
  private checkedAt = 0;
  /** Bumped by `invalidate`: a read that began before it does not count as a check. */
  private generation = 0;
  private reading: Promise<readonly FrameworkRelease[]> | null = null;
  /** Each release read, bound to its sign-off once (validating and hashing a definition costs a hot path). */
  private readonly bound = new WeakMap<FrameworkRelease, Framework>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { known?: readonly Framework[]; checkEveryMs?: number } = {},
  ) {
    this.known = options.known ? new Map(options.known.map((f) => [f.definition.version, f])) : frameworks;
    this.checkEveryMs = options.checkEveryMs ?? 1000;
  }

  /** Makes the next lookup read the releases from the store (after this process recorded one). */
  invalidate(): void {
    this.generation += 1;
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** Every recorded release, as fresh as the interval allows, or read now when `fresh`. */
  async list(fresh = false): Promise<readonly FrameworkRelease[]> {
    const now = this.clock.now().getTime();
    if (!fresh && this.releases && now - this.checkedAt < this.checkEveryMs) return this.releases;
    if (!this.reading) {
      this.reading = this.read(now).finally(() => {
        this.reading = null;
      });
    }
    return this.reading;
  }

  /** The releases as last read (null before the first read), without going to the store. */
  lastRead(): readonly FrameworkRelease[] | null {
    return this.releases ?? null;
  }

  /** The framework of a release this cache read, built once per release. */
  frameworkOf(release: FrameworkRelease): Framework {
    let framework = this.bound.get(release);
    if (!framework) {
      framework = releasedFramework(this.known, release);
      this.bound.set(release, framework);
    }
    return framework;
  }

  private async read(now: number): Promise<readonly FrameworkRelease[]> {
    const generation = this.generation;
    try {
      this.releases = await listReleaseRows(this.store.db);
    } catch (error) {
      if (!this.releases) throw error;
    }
    if (generation === this.generation) this.checkedAt = now;
    return this.releases;
  }
}

/** The engine's definition for a release, bound to the release's sign-off. */
export function releasedFramework(catalogue: ReadonlyMap<string, Framework>, release: FrameworkRelease): Framework {
  const known = catalogue.get(release.version);
  if (!known || known.sha256 !== release.framework_sha256) {
    throw new FrameworkError(
      `published framework ${release.framework_version} (sha256 ${release.framework_sha256}) is not known to this engine`,
    );
  }
  const signOff: SignOff = {
    role: 'chief_risk_officer',
    signed_off_by: release.signed_off_by,
    signed_off_on: release.signed_off_at.slice(0, 10),
  };
  return defineFramework(known.definition, signOff);
}
