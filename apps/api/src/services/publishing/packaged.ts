import {
  type ComputationPackage,
  type Framework,
  type InputsDocument,
  pathToNextBand,
  readJson,
  validateInputs,
} from '@svc/methodology';
import type { Logger } from 'pino';
import { increment, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import type { Store } from '../../store/store.js';
import { type FrameworkScope, knownFramework } from '../frameworks/frameworks.js';

/**
 * The approved inputs and the framework a stored computation package was scored from, among the frameworks this
 * process knows (`ctx.frameworks`, by default the engine's).
 */
export function packagedInputs(
  packageText: string,
  ctx: Pick<FrameworkScope, 'frameworks'> = {},
): { document: InputsDocument; framework: Framework } {
  const pkg = readJson(packageText) as ComputationPackage;
  const framework = knownFramework(ctx, pkg.framework.version);
  if (!framework || framework.sha256 !== pkg.framework.sha256) {
    throw new Error(
      `package ${pkg.risk_indicator_id} was computed under ${pkg.framework.framework_version} (sha256 ${pkg.framework.sha256}), which this engine does not carry`,
    );
  }
  const validation = validateInputs(pkg.inputs, framework);
  if (!validation.ok) throw new Error(`the inputs of package ${pkg.risk_indicator_id} no longer validate`);
  return { document: validation.document, framework };
}

const BATCH = 100;

/**
 * Gives every stored indicator its path to the next band: those published before the engine computed
 * it at publication. Runs at start-up; a store that has them all costs one query. An indicator whose
 * package this engine cannot score (a framework it does not carry) is logged and left without one,
 * rather than keeping the service from starting. Returns how many it filled.
 */
export async function backfillNextBand(
  store: Store,
  logger?: Logger,
  ctx: Pick<FrameworkScope, 'frameworks'> = {},
): Promise<number> {
  let filled = 0;
  let after = '';
  const started = Date.now();
  for (;;) {
    const rows = await store.db
      .selectFrom('risk_indicators')
      .select(['risk_indicator_id', 'package'])
      .where('path_to_next_band', 'is', null)
      .where('risk_indicator_id', '>', after)
      .orderBy('risk_indicator_id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      after = row.risk_indicator_id;
      let path: string;
      try {
        const { document, framework } = packagedInputs(row.package, ctx);
        path = JSON.stringify(pathToNextBand(document, framework));
      } catch (error) {
        logger?.error(
          { risk_indicator_id: row.risk_indicator_id, err: (error as Error).message },
          'no path to the next band for a stored indicator',
        );
        continue;
      }
      await store.db
        .updateTable('risk_indicators')
        .set({ path_to_next_band: path })
        .where('risk_indicator_id', '=', row.risk_indicator_id)
        .where('path_to_next_band', 'is', null)
        .execute();
      filled++;
    }
  }
  if (filled > 0) {
    // The served indicators carry the path: every instance's kept bytes of them (and its public list) are stale now.
    await increment(store.db, PUBLICATION_VERSION);
    logger?.info({ filled, ms: Date.now() - started }, 'paths to the next band computed for stored indicators');
  }
  return filled;
}
