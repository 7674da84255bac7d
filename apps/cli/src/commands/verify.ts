import { canonicalJson, type Verification, verifyPackage } from '@svc/methodology';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { parseJson, readText } from '../files.js';
import { setExitCode } from '../io.js';
import { printJson, printLines, withOutputOptions } from '../output.js';
import { checkStatement } from '../statement.js';

interface VerifyOptions {
  json?: boolean;
  statement?: string;
  keys?: string;
}

export function registerVerify(program: Command): void {
  withOutputOptions(
    program
      .command('verify')
      .description('recompute a computation package from its own inputs and framework and compare every step')
      .argument('<package>', 'a computation package file (as written by svc score --package)')
      .option(
        '--statement <file|url>',
        "the package's signed statement (GET /api/public/publications/{id}): its signature and that it names this package are checked too",
      )
      .option(
        '--keys <file|url>',
        'the signing keys, a JWKS (/.well-known/svc-signing-keys.json); needed with --statement',
      ),
  ).action(async (file: string, options: VerifyOptions) => {
    setExitCode(await verify(file, options));
  });
}

async function verify(file: string, options: VerifyOptions): Promise<number> {
  if ((options.statement === undefined) !== (options.keys === undefined)) {
    throw new CliError('usage', '--statement and --keys go together: the statement is checked against the keys');
  }
  const text = await readText(file);
  const value = parseJson(text, file);
  if (isInputsDocument(value)) {
    throw new CliError(
      'invalid_package',
      `an approved-inputs document, not a computation package: score it with \`svc score ${file}\`, and add --package OUT to write the package that svc verify checks`,
      { file, details: { status: 'invalid' } },
    );
  }
  // The text as stored (a BOM included) is what is compared with the canonical bytes.
  const verification = verifyPackage(value, text);
  if (verification.status === 'invalid') {
    const count = `${verification.problems.length} ${verification.problems.length === 1 ? 'problem' : 'problems'}`;
    throw new CliError('invalid_package', `not a valid computation package (${count})`, {
      file,
      problems: verification.problems.map((p) => ({ file, ...p })),
      details: { status: verification.status },
    });
  }
  if (verification.status === 'differs') throw doesNotReproduce(file, verification);
  const statement =
    options.statement !== undefined && options.keys !== undefined
      ? await checkStatement(
          { statement: options.statement, keys: options.keys },
          { value: value as Record<string, unknown>, canonical: canonicalJson(value) },
        )
      : undefined;
  if (options.json) printJson(statement ? { ...verification, statement } : verification);
  else {
    printLines(reproducedLine(verification));
    if (statement) {
      printLines(
        `statement verified: signed by key ${statement.kid} (${statement.key_status}) at ${statement.signed_at}, naming package sha256 ${statement.package_sha256}`,
      );
    }
  }
  return 0;
}

/** What an approved-inputs document has and a computation package has not: a provider, inputs, no package_format. */
function isInputsDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return !keys.includes('package_format') && keys.includes('provider') && keys.includes('inputs');
}

function reproducedLine(v: Extract<Verification, { status: 'reproduced' }>): string {
  const remarks = [
    ...(v.canonical_bytes === false ? ['the file bytes are not the canonical RFC 8785 serialisation'] : []),
    ...v.notes.map((note) => `note: ${note}`),
  ];
  const line = `reproduced: ${v.risk_indicator_id} (${v.framework_version}), result sha256 ${v.result_sha256}`;
  return remarks.length === 0 ? line : `${line}; ${remarks.join('; ')}`;
}

/** Names the first differing step, in the order the computation runs, and counts the rest. */
function doesNotReproduce(file: string, v: Extract<Verification, { status: 'differs' }>): CliError {
  const [first, ...rest] = v.differences;
  const where = first
    ? `${first.step}: expected ${shown(first.expected)}, found ${shown(first.found)}`
    : 'unknown step';
  const further =
    rest.length === 0 ? '' : ` (and ${rest.length} further ${rest.length === 1 ? 'difference' : 'differences'})`;
  const notes = v.notes.map((note) => `; note: ${note}`).join('');
  return new CliError('does_not_reproduce', `does not reproduce: ${where}${further}${notes}`, {
    file,
    details: { ...v },
  });
}

function shown(value: string | undefined): string {
  return value === undefined ? '(absent)' : value;
}
