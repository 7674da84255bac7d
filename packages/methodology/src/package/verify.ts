import { z } from 'zod';
import { canonicalJson, canonicalSha256 } from '../canonical/canonical-json.js';
import { compute } from '../compute/compute.js';
import { ENGINE } from '../engine.js';
import { frameworks as published } from '../framework/registry.js';
import type { Framework } from '../framework/schema.js';
import { identify } from '../indicator.js';
import { type Problem, validateInputs } from '../inputs/document.js';
import { packageOf } from './build.js';
import { PACKAGE_FORMAT } from './computation-package.js';
import { type Difference, differences } from './diff.js';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits');

/** The envelope verification needs before it can recompute; the rest is compared field by field. */
const PackageEnvelope = z.looseObject({
  package_format: z.literal(PACKAGE_FORMAT),
  engine: z.looseObject({ name: z.string(), version: z.string() }),
  framework: z.looseObject({ version: z.string(), sha256: Sha256 }),
  inputs: z.unknown(),
  inputs_sha256: Sha256,
  risk_indicator_id: z.string(),
  steps: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  result_sha256: Sha256,
});

export type Verification =
  | {
      status: 'reproduced';
      risk_indicator_id: string;
      result_sha256: string;
      framework_version: string;
      /** Whether the package's bytes, if given, are its RFC 8785 canonical form. */
      canonical_bytes: boolean | null;
      notes: string[];
    }
  | { status: 'differs'; differences: Difference[]; notes: string[] }
  | { status: 'invalid'; problems: Problem[] };

export interface VerifyOptions {
  /** The frameworks a package may name, by version; the published ones by default. */
  frameworks?: ReadonlyMap<string, Framework>;
}

/**
 * Recomputes a package from its own inputs under the framework it names, and
 * compares every step and hash, in computation order. `bytes`, when given, is
 * the package's text as read, to report whether it is the canonical form.
 */
export function verifyPackage(pkg: unknown, bytes?: string, options: VerifyOptions = {}): Verification {
  const envelope = PackageEnvelope.safeParse(pkg);
  if (!envelope.success) {
    return {
      status: 'invalid',
      problems: envelope.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    };
  }
  const given = envelope.data;
  const known = options.frameworks ?? published;
  const framework = known.get(given.framework.version);
  if (!framework) {
    const supported = [...known.keys()].join(', ');
    return {
      status: 'invalid',
      problems: [
        {
          path: 'framework.version',
          message: `unknown framework version "${given.framework.version}"; supported: ${supported}`,
        },
      ],
    };
  }
  const validation = validateInputs(given.inputs, framework);
  if (!validation.ok) return { status: 'invalid', problems: validation.problems.map((p) => prefixed('inputs', p)) };

  const c = compute(validation.document, framework);
  const recomputed = packageOf(c, identify(c));
  const notes: string[] = [];
  if (given.engine.name !== ENGINE.name || given.engine.version !== ENGINE.version) {
    notes.push(`built by ${given.engine.name} ${given.engine.version}, recomputed by ${ENGINE.name} ${ENGINE.version}`);
  }
  const { engine: _ours, ...expected } = recomputed;
  const { engine: _theirs, ...actual } = pkg as Record<string, unknown>;
  const found = differences(expected, actual);
  if (found.length > 0) return { status: 'differs', differences: found, notes };
  return {
    status: 'reproduced',
    risk_indicator_id: recomputed.risk_indicator_id,
    result_sha256: canonicalSha256(recomputed.result),
    framework_version: framework.definition.framework_version,
    canonical_bytes: bytes === undefined ? null : bytes === canonicalJson(pkg),
    notes,
  };
}

function prefixed(prefix: string, p: Problem): Problem {
  return { path: p.path ? `${prefix}.${p.path}` : prefix, message: p.message };
}
