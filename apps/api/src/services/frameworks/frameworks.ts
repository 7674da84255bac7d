import {
  canonicalJson,
  controlCharacterProblem,
  currentFramework,
  type Framework,
  FrameworkError,
  frameworks,
  frameworkVersionKey,
} from '@svc/methodology';
import type { Clock } from '../../clock.js';
import { isoNow } from '../../clock.js';
import {
  findRelease as findReleaseRow,
  insertRelease,
  listReleases as listReleaseRows,
} from '../../store/repositories/framework-releases.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { emitEvent } from '../webhooks/events.js';
import { type FrameworkRelease, type FrameworkReleases, releasedFramework } from './framework-releases.js';

export type { FrameworkRelease };

export interface PublishFrameworkRequest {
  /** The framework to publish: its definition must be the one the engine knows for its version. */
  framework: Framework;
  /** The chief risk officer signing it off. */
  /**
   * Who signed it off, in open mode (and for the system): an operator with a token signs off in their own name,
   * and naming someone else is refused.
   */
  signedOffBy?: string | undefined;
}

export interface PublishFrameworkResult {
  /** False when this version was already published with this definition: nothing was written. */
  created: boolean;
  release: FrameworkRelease;
  /** The framework with the recorded sign-off: publishable. */
  framework: Framework;
}

/**
 * Records the chief risk officer's sign-off of a framework version and makes it current from its effective date
 * (this process's cached releases are read again at once). Refused (FrameworkError) without a signer, for a version
 * this process does not know, or for a definition whose hash differs from the known one for that version.
 * Publishing the same version again returns the first release unchanged. The first publication emits
 * `methodology.published` in its transaction.
 */
export async function publishFramework(
  ctx: ServiceContext,
  request: PublishFrameworkRequest,
): Promise<PublishFrameworkResult> {
  const { store, clock } = ctx;
  const { definition, sha256 } = request.framework;
  await authorise(ctx, 'chief_risk_officer', `signing off ${definition.framework_version}`);
  const operator = ctx.actor.kind === 'operator' && ctx.actor.id !== null ? ctx.actor.name : null;
  if (operator !== null && request.signedOffBy !== undefined) {
    throw new ServiceError(
      'refused',
      `--signed-off-by is not accepted with an operator token: the sign-off is ${operator}'s, the holder of SVC_OPERATOR_TOKEN`,
    );
  }
  const signedOffBy = operator ?? (request.signedOffBy ?? '').trim();
  if (signedOffBy === '') {
    throw new FrameworkError(
      `${definition.framework_version} has no chief risk officer sign-off: name who signed it off with --signed-off-by NAME (this store has no operators; once it has, the chief risk officer's SVC_OPERATOR_TOKEN signs)`,
    );
  }
  const unreadable = controlCharacterProblem(request.signedOffBy ?? '');
  if (unreadable) throw new FrameworkError(`the name of who signed it off (--signed-off-by) ${unreadable}`);
  const known = knownOf(ctx).get(definition.version);
  if (!known) {
    throw new FrameworkError(`the engine knows no framework version ${definition.version}: it cannot be published`);
  }
  if (known.sha256 !== sha256) {
    throw new FrameworkError(
      `${definition.framework_version} (sha256 ${sha256}) is not the definition the engine knows for version ${definition.version} (sha256 ${known.sha256})`,
    );
  }
  const now = isoNow(clock);
  const row: FrameworkRelease = {
    version: definition.version,
    framework_version: definition.framework_version,
    framework_sha256: sha256,
    signed_off_by: signedOffBy,
    signed_off_at: now,
    effective_date: definition.effective_date,
    published_at: now,
  };
  const created = await store.db.transaction().execute(async (tx) => {
    if (!(await insertRelease(tx, row))) return false;
    await emitEvent(tx, {
      type: 'methodology.published',
      at: now,
      data: {
        version: row.version,
        framework_version: row.framework_version,
        framework_sha256: row.framework_sha256,
        effective_date: row.effective_date,
        signed_off_by: row.signed_off_by,
        signed_off_at: row.signed_off_at,
      },
    });
    await recordAudit(ctx, tx, [
      {
        action: 'framework.released',
        subject: { type: 'framework', id: row.version },
        details: {
          framework_version: row.framework_version,
          framework_sha256: row.framework_sha256,
          effective_date: row.effective_date,
          signed_off_by: row.signed_off_by,
        },
      },
    ]);
    return true;
  });
  if (created) ctx.frameworks?.invalidate();
  const release = created ? row : await findRelease(ctx, { version: definition.version });
  if (!release) throw new Error(`framework release ${definition.version} vanished`);
  return { created, release, framework: releasedFramework(knownOf(ctx), release) };
}

/** The release recorded for a version ("1.0"), or undefined when it was never published. */
export function findRelease(ctx: { store: Store }, input: { version: string }): Promise<FrameworkRelease | undefined> {
  return findReleaseRow(ctx.store.db, input.version);
}

/** Every release recorded, as the store keeps them. */
export function listReleases(ctx: { store: Store }): Promise<FrameworkRelease[]> {
  return listReleaseRows(ctx.store.db);
}

/**
 * What the framework lookups read: a verb's context or the process's services (with the cached releases), a
 * command's store and clock alone (the releases read from the store, the engine's frameworks known), or a command
 * with no store at all (`store: null`: `svc score` offline), for which no release is recorded.
 */
export interface FrameworkScope {
  store: Store | null;
  clock: Clock;
  frameworks?: FrameworkReleases | undefined;
}

export interface FrameworkQuery {
  /** The date (YYYY-MM-DD); by default today by the context's clock. */
  on?: string;
  /**
   * Read the releases from the store now rather than as last read (a reader that is no hot path, such as the
   * methodology, shows a release another process recorded at once, and refreshes the cache for the others).
   */
  fresh?: boolean;
  /** Only the releases as last read, never a read of the store now (a status answering while the store is away). */
  asLastRead?: boolean;
}

/**
 * The framework in force on `on` (YYYY-MM-DD, by default today by the clock), the one answer every reader and
 * writer uses (docs/decisions/0022-framework-in-force.md): the signed-off release with the latest effective date on
 * or before it (the later recorded of two on one date), bound to its recorded sign-off; the engine's built-in
 * signed-off framework while no release is in force on that date.
 */
export async function frameworkInForce(ctx: FrameworkScope, input: FrameworkQuery = {}): Promise<Framework> {
  const on = input.on ?? isoNow(ctx.clock).slice(0, 10);
  let release: FrameworkRelease | undefined;
  const releases = input.asLastRead ? (ctx.frameworks?.lastRead() ?? []) : await releasesOf(ctx, input.fresh);
  for (const r of releases) {
    if (r.effective_date > on) continue;
    if (
      !release ||
      r.effective_date > release.effective_date ||
      (r.effective_date === release.effective_date && r.published_at > release.published_at)
    ) {
      release = r;
    }
  }
  return release ? frameworkOfRelease(ctx, release) : currentFramework();
}

/**
 * A framework asked for by its version (as the engine keys it, e.g. "1.0"): the engine's definition, with the
 * sign-off recorded when the version was published and the built-in one while no release of it is recorded.
 * Undefined for a version this process does not know.
 */
export async function frameworkNamed(
  ctx: FrameworkScope,
  input: { version: string; fresh?: boolean },
): Promise<Framework | undefined> {
  const known = knownOf(ctx).get(input.version);
  if (!known) return undefined;
  const release = (await releasesOf(ctx, input.fresh)).find((r) => r.version === known.definition.version);
  return release ? frameworkOfRelease(ctx, release) : known;
}

/** A released framework as the public list shows it (GET /api/public/frameworks). */
export interface ReleasedFramework {
  version: string;
  framework_version: string;
  framework_sha256: string;
  effective_date: string;
  signed_off_by: string;
  /** The recorded sign-off's timestamp; the built-in sign-off's date (YYYY-MM-DD), the only one it has. */
  signed_off_at: string;
}

/**
 * Every released framework, by effective date (then by when it was recorded): each release recorded in the store,
 * and the engine's built-in signed-off framework while no release of its version is recorded, since that is the one
 * frameworkInForce answers without a release (docs/decisions/0022-framework-in-force.md, "Public frameworks"). A
 * framework the process merely knows (a draft, or a test framework) is not released until it is published.
 */
export async function releasedFrameworks(ctx: FrameworkScope): Promise<ReleasedFramework[]> {
  const order = (r: FrameworkRelease) => `${r.effective_date} ${r.published_at}`;
  const releases = [...(await releasesOf(ctx))].sort((a, b) =>
    order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0,
  );
  const listed: ReleasedFramework[] = releases.map((r) => ({
    version: r.version,
    framework_version: r.framework_version,
    framework_sha256: r.framework_sha256,
    effective_date: r.effective_date,
    signed_off_by: r.signed_off_by,
    signed_off_at: r.signed_off_at,
  }));
  const builtIn = currentFramework();
  const { definition, signOff } = builtIn;
  if (signOff && !releases.some((r) => r.version === definition.version)) {
    const entry: ReleasedFramework = {
      version: definition.version,
      framework_version: definition.framework_version,
      framework_sha256: builtIn.sha256,
      effective_date: definition.effective_date,
      signed_off_by: signOff.signed_off_by,
      signed_off_at: signOff.signed_off_on,
    };
    const at = listed.findIndex((r) => r.effective_date > entry.effective_date);
    listed.splice(at === -1 ? listed.length : at, 0, entry);
  }
  return listed;
}

/** The canonical bytes of a framework's definition, built once per framework (definitions are frozen). */
const definitionBytes = new WeakMap<Framework, Buffer>();

/**
 * A released framework (one GET /api/public/frameworks lists, known to this process with the release's hash);
 * refused (not_found) for a version that is not released, naming it and the released ones.
 */
export async function releasedVersion(ctx: FrameworkScope, input: { version: string }): Promise<Framework> {
  const released = await releasedFrameworks(ctx);
  const entry = released.find((r) => r.version === input.version);
  const framework = entry && knownFramework(ctx, entry.version);
  if (!entry || !framework || framework.sha256 !== entry.framework_sha256) {
    const versions = released.map((r) => r.version).join(', ') || 'none';
    throw new ServiceError('not_found', `no released framework version "${input.version}"; released: ${versions}`);
  }
  return framework;
}

/**
 * The RFC 8785 bytes of a released framework's definition (those whose SHA-256 is its `framework_sha256`), with
 * that hash; refused as releasedVersion refuses.
 */
export async function releasedDefinition(
  ctx: FrameworkScope,
  input: { version: string },
): Promise<{ sha256: string; bytes: Buffer }> {
  const framework = await releasedVersion(ctx, input);
  let bytes = definitionBytes.get(framework);
  if (!bytes) {
    bytes = Buffer.from(canonicalJson(framework.definition), 'utf8');
    definitionBytes.set(framework, bytes);
  }
  return { sha256: framework.sha256, bytes };
}

/** The framework this process knows as `version` ("1.0"), without reading the store; undefined when it knows none. */
export function knownFramework(ctx: Pick<FrameworkScope, 'frameworks'>, version: string): Framework | undefined {
  return knownOf(ctx).get(version);
}

/** The versions this process knows ("1.0", ...), for a message naming the supported ones. */
export function knownVersions(ctx: Pick<FrameworkScope, 'frameworks'>): string[] {
  return [...knownOf(ctx).keys()];
}

/** "1.0" for "DCRF v1.0" (or "v1.0", "1.0") when this process knows that framework; null when it does not. */
export function knownVersionOf(ctx: Pick<FrameworkScope, 'frameworks'>, frameworkVersion: string): string | null {
  return knownFramework(ctx, frameworkVersionKey(frameworkVersion))?.definition.version ?? null;
}

function knownOf(ctx: Pick<FrameworkScope, 'frameworks'>): ReadonlyMap<string, Framework> {
  return ctx.frameworks?.known ?? frameworks;
}

function frameworkOfRelease(ctx: FrameworkScope, release: FrameworkRelease): Framework {
  return ctx.frameworks ? ctx.frameworks.frameworkOf(release) : releasedFramework(frameworks, release);
}

function releasesOf(ctx: FrameworkScope, fresh = false): Promise<readonly FrameworkRelease[]> {
  if (ctx.frameworks) return ctx.frameworks.list(fresh);
  return ctx.store ? listReleaseRows(ctx.store.db) : Promise.resolve([]);
}
