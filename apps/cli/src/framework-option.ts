import {
  CURRENT_FRAMEWORK_VERSION,
  defineFramework,
  type Framework,
  frameworks,
  frameworkVersionKey,
  getFramework,
} from '@svc/methodology';
import { asCliError, CliError } from './errors.js';
import { readJsonFile } from './files.js';

export const FRAMEWORK_OPTION = ['--framework <version>', 'framework version, e.g. 1.0 or "DCRF v1.0"'] as const;

/** `--framework-file PATH`, repeatable: a framework definition (JSON) known to this command only, as a draft. */
export const FRAMEWORK_FILE_OPTION = [
  '--framework-file <path>',
  'a framework definition (JSON) to know besides the built-in versions, as an unsigned draft; repeatable',
  (path: string, previous: string[] = []) => [...previous, path],
] as const;

/** A framework by version ("1.0", "v1.0", "DCRF v1.0"); an unknown one names the supported versions (exit 2). */
export function selectFramework(
  version: string = CURRENT_FRAMEWORK_VERSION,
  drafts: readonly Framework[] = [],
): Framework {
  const draft = drafts.find((f) => f.definition.version === frameworkVersionKey(version));
  if (draft) return draft;
  try {
    return getFramework(version);
  } catch (error) {
    const known = drafts.map((f) => f.definition.version);
    const cli = asCliError(error);
    if (known.length === 0) throw cli;
    throw new CliError(cli.code, `${cli.message}; from --framework-file: ${known.join(', ')}`, { cause: error });
  }
}

/**
 * Reads framework definitions from files, validated as the engine validates its own; they carry no
 * sign-off, so they can score and be compared but never published. A file may not reuse a built-in version.
 */
export async function loadFrameworkFiles(paths: readonly string[] = []): Promise<Framework[]> {
  const out: Framework[] = [];
  for (const path of paths) {
    const json = await readJsonFile(path);
    let framework: Framework;
    try {
      framework = defineFramework(json);
    } catch (error) {
      const cli = asCliError(error);
      throw new CliError(cli.code, `${path}: ${cli.message}`, { problems: cli.problems, cause: error });
    }
    const { version } = framework.definition;
    if (frameworks.has(version) || out.some((f) => f.definition.version === version)) {
      throw new CliError(
        'usage',
        `${path}: framework version ${version} is already known; a draft needs a new version`,
      );
    }
    out.push(framework);
  }
  return out;
}
