import {
  controlCharacterProblem,
  currentFramework,
  defineFramework,
  type Framework,
  FrameworkError,
  frameworks,
  type SignOff,
} from '@svc/methodology';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';
import {
  findRelease as findReleaseRow,
  insertRelease,
  listReleases as listReleaseRows,
  releaseInForce,
} from '../store/repositories/framework-releases.js';
import type { FrameworkReleasesTable } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { emitEvent } from './webhooks/events.js';

export type FrameworkRelease = FrameworkReleasesTable;

export interface PublishFrameworkRequest {
  /** The framework to publish: its definition must be the one the engine knows for its version. */
  framework: Framework;
  /** The chief risk officer signing it off. */
  signedOffBy: string;
}

export interface PublishFrameworkResult {
  /** False when this version was already published with this definition: nothing was written. */
  created: boolean;
  release: FrameworkRelease;
  /** The framework with the recorded sign-off: publishable. */
  framework: Framework;
}

/**
 * Records the chief risk officer's sign-off of a framework version and makes it current from its
 * effective date. Refused (FrameworkError) without a signer, for a version the engine does not know,
 * or for a definition whose hash differs from the engine's for that version. Publishing the same
 * version again returns the first release unchanged. The first publication emits `methodology.published`
 * in its transaction.
 */
export async function publishFramework(
  store: Store,
  clock: Clock,
  request: PublishFrameworkRequest,
): Promise<PublishFrameworkResult> {
  const signedOffBy = request.signedOffBy.trim();
  const { definition, sha256 } = request.framework;
  if (signedOffBy === '') {
    throw new FrameworkError(
      `${definition.framework_version} has no chief risk officer sign-off: name who signed it off`,
    );
  }
  const unreadable = controlCharacterProblem(request.signedOffBy);
  if (unreadable) throw new FrameworkError(`the name of who signed it off (--signed-off-by) ${unreadable}`);
  const known = frameworks.get(definition.version);
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
    return true;
  });
  const release = created ? row : await findRelease(store, definition.version);
  if (!release) throw new Error(`framework release ${definition.version} vanished`);
  return { created, release, framework: releasedFramework(release) };
}

export function findRelease(store: Store, version: string): Promise<FrameworkRelease | undefined> {
  return findReleaseRow(store.db, version);
}

export function listReleases(store: Store): Promise<FrameworkRelease[]> {
  return listReleaseRows(store.db);
}

/**
 * The framework current on `date` (YYYY-MM-DD): the published release with the latest effective date
 * on or before it; the engine's built-in signed-off framework while no release is recorded.
 */
export async function currentPublishedFramework(store: Store, date: string): Promise<Framework> {
  const release = await releaseInForce(store.db, date);
  return release ? releasedFramework(release) : currentFramework();
}

/**
 * A framework as every reader shows it (GET /api/v1/methodology, the agent tool, `svc methodology show`): the named
 * version (as the engine keys it, e.g. "1.0"), or without one the framework in force on `date`. Its sign-off has one
 * source: the release recorded when the version was published (`svc methodology publish`), and the engine's built-in
 * sign-off only while no release of that version is recorded. The definition, and so its hash, is the engine's.
 * Undefined for a version the engine does not know.
 */
export async function publishedFramework(
  store: Store,
  version: string | undefined,
  date: string,
): Promise<Framework | undefined> {
  if (version === undefined) return currentPublishedFramework(store, date);
  const known = frameworks.get(version);
  if (!known) return undefined;
  const release = await findReleaseRow(store.db, known.definition.version);
  return release ? releasedFramework(release) : known;
}

/** The engine's definition for a release, bound to the release's sign-off. */
function releasedFramework(release: FrameworkRelease): Framework {
  const known = frameworks.get(release.version);
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
