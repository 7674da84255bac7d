import { DCRF_1_0, DCRF_1_0_SIGN_OFF } from './dcrf-1.0.js';
import { defineFramework, FrameworkError } from './framework.js';
import type { Framework } from './schema.js';

const builtIn: readonly Framework[] = [defineFramework(DCRF_1_0, DCRF_1_0_SIGN_OFF)];

/** Versions live side by side; the published current one is the newest signed-off framework. */
export const frameworks: ReadonlyMap<string, Framework> = new Map(builtIn.map((f) => [f.definition.version, f]));

export const CURRENT_FRAMEWORK_VERSION = '1.0';

/**
 * The version a framework is keyed by ("1.0") as people write it: "1.0", "v1.0" or "DCRF v1.0" (any case). The one
 * reading of a version string, for the engine, the service and the CLI alike.
 */
export function frameworkVersionKey(version: string): string {
  return version.replace(/^(DCRF\s+)?v?/i, '');
}

/** A framework by version: "1.0", "v1.0" or "DCRF v1.0". */
export function getFramework(version: string = CURRENT_FRAMEWORK_VERSION): Framework {
  const found = frameworks.get(frameworkVersionKey(version));
  if (!found) {
    const known = [...frameworks.keys()].join(', ');
    throw new FrameworkError(`unknown framework version "${version}"; supported: ${known}`);
  }
  return found;
}

export function currentFramework(): Framework {
  return getFramework(CURRENT_FRAMEWORK_VERSION);
}
