// The workspace's publishable packages as someone outside gets them: `pnpm pack` tarballs, installed with plain
// `npm install` into an empty project. Third-party dependencies come from the npm registry; no @svc package may
// (the scope is not ours there): the project's .npmrc sends the @svc scope to a closed port, so a package that is
// not among the tarballs fails the install instead of being fetched, and the lockfile must show every @svc package
// resolved from a local tarball.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** What the child processes inherit: not the npm_* variables pnpm sets for the script running the tests. */
function cleanEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

const MiB = 1024 * 1024;

/** `pnpm pack` of one workspace package (its folder relative to the repository) into `destination`. */
export async function pack(folder, destination) {
  mkdirSync(destination, { recursive: true });
  const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
    cwd: join(REPO, folder),
    env: cleanEnvironment(),
    maxBuffer: 16 * MiB,
  });
  const report = JSON.parse(stdout);
  const { stdout: manifestText } = await run('tar', ['-xzOf', report.filename, 'package/package.json'], {
    maxBuffer: 16 * MiB,
  });
  return {
    name: report.name,
    version: report.version,
    tarball: report.filename,
    files: report.files.map((file) => file.path),
    manifest: JSON.parse(manifestText),
  };
}

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];

/**
 * Why the packed package could not be published and used as it is; none when it can. `together` names the other
 * packages published alongside it (an @svc dependency must be one of them).
 */
export function publishProblems(packed, together = []) {
  const { manifest, files } = packed;
  const problems = [];
  const has = (path) => files.includes(path.replace(/^\.\//, ''));
  if (manifest.private) problems.push('"private": true (npm refuses to publish it)');
  for (const field of ['name', 'version', 'description', 'license', 'type', 'types']) {
    if (!manifest[field]) problems.push(`no "${field}"`);
  }
  if (!manifest.engines?.node) problems.push('no "engines.node"');
  if (!manifest.files) problems.push('no "files" list');
  if (manifest.publishConfig?.access !== 'public')
    problems.push('a scoped package needs "publishConfig.access": "public"');
  if (!files.includes('README.md')) problems.push('README.md is not in the tarball');
  if (!files.includes('LICENSE')) problems.push('LICENSE is not in the tarball');
  if (manifest.types && !has(manifest.types)) problems.push(`"types" names ${manifest.types}, not in the tarball`);
  const root = manifest.exports?.['.'];
  if (!root?.types || !root?.default) problems.push('"exports"."." needs "types" and "default"');
  for (const target of [root?.types, root?.default].filter(Boolean)) {
    if (!has(target)) problems.push(`"exports" names ${target}, not in the tarball`);
  }
  const unmapped = [];
  for (const file of files) {
    if (/(^|\/)(__tests__|test)\//.test(file) || /\.test\.[cm]?[jt]s$/.test(file))
      problems.push(`ships a test: ${file}`);
    if (file.endsWith('.map')) {
      // A source map points at the sources: they ship with it, or the map leads nowhere.
      const source = `${file.replace(/\.d\.ts\.map$|\.js\.map$/, '').replace(/^dist\//, 'src/')}.ts`;
      if (!files.includes(source)) unmapped.push(`${file} -> ${source}`);
    }
  }
  if (unmapped.length > 0) {
    problems.push(`${unmapped.length} source maps point at sources not in the tarball, e.g. ${unmapped[0]}`);
  }
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace|catalog|link|file):/.test(range)) problems.push(`${field}.${name} is "${range}"`);
      if (name.startsWith('@svc/') && !together.includes(name)) {
        problems.push(`${field}.${name}: an @svc package that is not published with it`);
      }
    }
  }
  return problems;
}

/**
 * An empty project in `folder` with the tarballs installed by `npm install`, as a user would. Throws when an @svc
 * package came from anywhere but a tarball.
 */
export async function installTarballs(folder, tarballs) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module' })}\n`,
  );
  // The @svc scope is not on the registry: a request for it must fail here, never fetch somebody else's package.
  // (npm asks for a dependency's metadata before it sees that a tarball given alongside satisfies it: that request
  // is refused at once, so its retries wait a fraction of a second, not npm's default minute.)
  const npmrc = [
    '@svc:registry=http://127.0.0.1:9/',
    'fetch-retry-mintimeout=200',
    'fetch-retry-maxtimeout=1000',
    'update-notifier=false',
    'fund=false',
    'audit=false',
  ];
  writeFileSync(join(folder, '.npmrc'), `${npmrc.join('\n')}\n`);
  await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs], {
    cwd: folder,
    env: cleanEnvironment(),
    maxBuffer: 16 * MiB,
    timeout: 180_000,
  });
  const lock = JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8'));
  const svc = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/@svc\//.test(path));
  for (const [path, entry] of svc) {
    if (!entry.resolved?.startsWith('file:')) {
      throw new Error(`${path} was resolved from ${entry.resolved ?? 'nowhere'}, not from a local tarball`);
    }
  }
  return { folder, svcPackages: svc.map(([path]) => path.replace(/^.*node_modules\//, '')).sort() };
}

/** Runs `node FILE` in the project (a file it writes there first); its stdout. */
export async function runNode(folder, name, source, env = {}) {
  const file = join(folder, name);
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, [file], {
    cwd: folder,
    env: { ...cleanEnvironment(), ...env },
    maxBuffer: 64 * MiB,
    timeout: 60_000,
  });
  return stdout;
}

/** The TypeScript compiler of the workspace, on the project's files: its output ('' when they type-check). */
export async function typecheck(folder, files, compilerOptions) {
  const compiler = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  writeFileSync(join(folder, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`);
  try {
    await run(process.execPath, [compiler, '-p', 'tsconfig.json'], {
      cwd: folder,
      maxBuffer: 16 * MiB,
      timeout: 120_000,
    });
    return '';
  } catch (error) {
    return `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error);
  }
}
