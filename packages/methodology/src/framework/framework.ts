import { canonicalSha256 } from '../canonical/canonical-json.js';
import { knownDerivations } from '../compute/derived.js';
import { type Framework, FrameworkDefinitionSchema, type SignOff, SignOffSchema } from './schema.js';

export class FrameworkError extends Error {
  override readonly name = 'FrameworkError';
  constructor(
    message: string,
    readonly problems: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Validates a definition and binds it to its hash; throws FrameworkError listing every problem. */
export function defineFramework(definition: unknown, signOff: SignOff | null = null): Framework {
  const parsed = FrameworkDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new FrameworkError(`invalid framework definition: ${problems.length} problem(s)`, problems);
  }
  const unknown = parsed.data.derived.filter((d) => !knownDerivations().includes(d.name));
  if (unknown.length > 0) {
    const problems = unknown.map((d) => ({ path: 'derived', message: `the engine computes no quantity "${d.name}"` }));
    throw new FrameworkError('invalid framework definition: unknown derived quantity', problems);
  }
  if (signOff !== null) SignOffSchema.parse(signOff);
  const frozen = deepFreeze(parsed.data);
  return Object.freeze({ definition: frozen, sha256: canonicalSha256(frozen), signOff });
}

/** Refuses a framework for publication unless the chief risk officer signed it off. */
export function assertPublishable(framework: Framework): void {
  if (framework.signOff === null) {
    throw new FrameworkError(
      `${framework.definition.framework_version} has no chief risk officer sign-off: it can score drafts but cannot publish`,
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
