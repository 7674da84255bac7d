import { CURRENT_FRAMEWORK_VERSION, type Framework, getFramework } from '@svc/methodology';
import { asCliError } from './errors.js';

export const FRAMEWORK_OPTION = ['--framework <version>', 'framework version, e.g. 1.0 or "DCRF v1.0"'] as const;

/** A framework by version ("1.0", "v1.0", "DCRF v1.0"); an unknown one names the supported versions (exit 2). */
export function selectFramework(version: string = CURRENT_FRAMEWORK_VERSION): Framework {
  try {
    return getFramework(version);
  } catch (error) {
    throw asCliError(error);
  }
}
