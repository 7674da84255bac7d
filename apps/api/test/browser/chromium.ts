import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * The system Chromium the browser tests drive (puppeteer-core downloads none): SVC_CHROMIUM when set, else Debian's
 * /usr/bin/chromium, else `chromium` or `chromium-browser` on PATH. In CI a missing browser fails the run loudly;
 * elsewhere the browser tests are skipped with a line saying how to install one.
 */

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const INSTALL =
  'install it (Debian: apt-get install chromium fonts-dejavu-core, or as root: bash tooling/system-deps.sh) or set SVC_CHROMIUM to a Chromium or Chrome executable';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function locate(): string | null {
  const chosen = process.env.SVC_CHROMIUM;
  if (chosen) {
    // A browser named and not there is a mistake to report, never a reason to use another one or to skip.
    if (!executable(chosen)) throw new Error(`SVC_CHROMIUM=${chosen} is not an executable file`);
    return chosen;
  }
  const found =
    (executable('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined) ??
    onPath('chromium') ??
    onPath('chromium-browser');
  if (found) return found;
  const line = 'no Chromium found (SVC_CHROMIUM, /usr/bin/chromium, chromium or chromium-browser on PATH)';
  if (IN_CI) throw new Error(`${line}: CI runs the browser tests and cannot skip them; ${INSTALL}`);
  console.warn(`SKIPPED: ${line}; the browser tests are skipped on this machine. To run them, ${INSTALL}.`);
  return null;
}

/** The browser's executable, or null (outside CI only) when there is none. */
export const chromiumPath = locate();

/**
 * Headless Chromium as it runs as root in a container: no sandbox (it needs user namespaces a container may not
 * give), no GPU, and /tmp instead of a small /dev/shm.
 */
export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
