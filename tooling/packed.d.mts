// The types of packed.mjs, for the TypeScript tests that import it.

export const REPO: string;

export interface Packed {
  name: string;
  version: string;
  /** The tarball's absolute path. */
  tarball: string;
  /** The paths inside the tarball, without the leading `package/`. */
  files: string[];
  /** The package.json inside the tarball. */
  manifest: Record<string, unknown> & {
    dependencies?: Record<string, string>;
    exports?: Record<string, unknown>;
    license?: string;
    private?: boolean;
  };
}

export function pack(folder: string, destination: string): Promise<Packed>;
export function publishProblems(packed: Packed, together?: readonly string[]): string[];
export function installTarballs(
  folder: string,
  tarballs: readonly string[],
): Promise<{ folder: string; svcPackages: string[] }>;
export function runNode(folder: string, name: string, source: string, env?: Record<string, string>): Promise<string>;
export function typecheck(
  folder: string,
  files: readonly string[],
  compilerOptions: Record<string, unknown>,
): Promise<string>;
