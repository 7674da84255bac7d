// Writes examples/statements/: the shared corpus of signed statements, genuine, forged and at the edges of the
// rules, that both verifiers (`svc verify --statement`, `python3 -m svc_client.verify --statement`) are tested
// against, each case with the exit code the rules of docs/auditing.md (section 8) give it.
//
//   pnpm build && node tooling/statement-corpus.mjs
//
// Deterministic: keys from fixed seeds, Ed25519 signatures are deterministic, the package is the worked example's.
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  canonicalJson,
  currentFramework,
  readJson,
  scoreWithPackage,
  serializePackage,
} from '../packages/methodology/dist/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'examples', 'statements');

/** An Ed25519 key from a 32-byte seed: the PKCS#8 DER prefix of RFC 8410, then the seed. */
function keyOf(byte) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, byte)]);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const x = createPublicKey(privateKey).export({ format: 'jwk' }).x;
  const kid = createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex').slice(0, 16);
  return { privateKey, x, kid };
}

const A = keyOf(1);
const B = keyOf(2);
const jwk = (key, life = {}) => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: key.x,
  kid: key.kid,
  use: 'sig',
  alg: 'EdDSA',
  status: life.not_after ? 'retired' : 'active',
  not_before: '2026-01-01T00:00:00.000Z',
  ...life,
});
const KEYS = { keys: [jwk(A)] };

const framework = currentFramework();
const document = readJson(readFileSync(join(ROOT, 'examples', 'dcrf-1.0', 'worked-example.json'), 'utf8'));
const { package: pkg } = scoreWithPackage(document, framework);
const packageText = serializePackage(pkg);
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The publication statement of the worked example's package, as the service writes it; `changes` replace members. */
function statementOf(changes = {}) {
  return {
    type: 'publication',
    risk_indicator_id: pkg.risk_indicator_id,
    provider_id: document.provider.id,
    provider_name: document.provider.name,
    final_score: 78.46,
    risk_band: 'MEDIUM',
    confidence: 1,
    framework_version: `DCRF v${pkg.framework.version}`,
    framework_sha256: pkg.framework.sha256,
    inputs_sha256: pkg.inputs_sha256,
    result_sha256: pkg.result_sha256,
    package_sha256: sha256(packageText),
    evaluation_date: document.evaluation_date,
    published_at: '2026-07-01T09:00:00.000Z',
    prev_statement_sha256: null,
    audit_head: { seq: 2, hash: 'a'.repeat(64) },
    signed_at: '2026-07-01T09:00:00.500Z',
    ...changes,
  };
}

/** The envelope GET /api/public/publications/{id} answers, signed by `key`. */
function envelopeOf(statement, key = A) {
  const text = canonicalJson(statement);
  return {
    statement,
    signature: sign(null, Buffer.from(text, 'utf8'), key.privateKey).toString('base64url'),
    kid: key.kid,
    alg: 'EdDSA',
    statement_sha256: sha256(text),
  };
}

const genuine = envelopeOf(statementOf());
const edit = (envelope, change) => {
  const copy = structuredClone(envelope);
  change(copy);
  return copy;
};
const flip = (text) => `${text.slice(0, 10)}${text[10] === 'A' ? 'B' : 'A'}${text.slice(11)}`;
const retiredAt = (not_after) => ({ keys: [jwk(A, { not_after })] });

/** [name, rule (docs/auditing.md section 8), exit code, envelope, keys]. */
const CASES = [
  ['genuine', 'all', 0, genuine, KEYS],
  ['retired-key-signed-within-its-life', '6', 0, genuine, retiredAt('2026-08-01T00:00:00.000Z')],
  ['signed-at-the-instant-the-key-retired', '6', 0, genuine, retiredAt('2026-07-01T09:00:00.500Z')],
  ['same-instant-written-with-more-fraction-digits', '6', 0, genuine, retiredAt('2026-07-01T09:00:00.500000000Z')],
  [
    'signed-at-the-instant-the-key-started',
    '6',
    0,
    genuine,
    { keys: [jwk(A, { not_before: '2026-07-01T09:00:00.5Z' })] },
  ],
  ['not-an-object', '1', 2, [genuine], KEYS],
  ['alg-missing', '1', 2, edit(genuine, (e) => delete e.alg), KEYS],
  ['statement-sha256-missing', '1', 2, edit(genuine, (e) => delete e.statement_sha256), KEYS],
  ['alg-none', '2', 1, edit(genuine, (e) => (e.alg = 'none')), KEYS],
  ['alg-lowercase', '2', 1, edit(genuine, (e) => (e.alg = 'eddsa')), KEYS],
  ['statement-sha256-of-other-bytes', '5', 1, edit(genuine, (e) => (e.statement_sha256 = 'b'.repeat(64))), KEYS],
  [
    'statement-sha256-in-capitals',
    '5',
    1,
    edit(genuine, (e) => (e.statement_sha256 = e.statement_sha256.toUpperCase())),
    KEYS,
  ],
  ['keys-not-a-jwks', '3', 2, genuine, { keys: 'none' }],
  ['kid-not-in-the-keys', '3', 1, genuine, { keys: [jwk(B)] }],
  ['kid-listed-twice', '3', 1, genuine, { keys: [jwk(A), jwk(A)] }],
  [
    'kid-naming-another-key',
    '3',
    1,
    edit(envelopeOf(statementOf(), B), (e) => (e.kid = A.kid)),
    { keys: [{ ...jwk(B), kid: A.kid }] },
  ],
  ['key-not-ed25519', '3', 1, genuine, { keys: [{ ...jwk(A), crv: 'X25519' }] }],
  ['key-x-of-31-bytes', '3', 1, genuine, { keys: [{ ...jwk(A), x: Buffer.alloc(31, 1).toString('base64url') }] }],
  ['signature-one-character-changed', '4', 1, edit(genuine, (e) => (e.signature = flip(e.signature))), KEYS],
  ['signature-with-base64-padding', '4', 1, edit(genuine, (e) => (e.signature = `${e.signature}==`)), KEYS],
  ['signature-not-base64url', '4', 1, edit(genuine, (e) => (e.signature = `${e.signature.slice(2)}+/`)), KEYS],
  ['signed-by-another-key', '4', 1, edit(envelopeOf(statementOf(), B), (e) => (e.kid = A.kid)), KEYS],
  [
    'score-changed-and-hash-recomputed',
    '4',
    1,
    edit(genuine, (e) => {
      e.statement.final_score = 99.99;
      e.statement_sha256 = sha256(canonicalJson(e.statement));
    }),
    KEYS,
  ],
  ['signed-after-the-key-retired', '6', 1, genuine, retiredAt('2026-06-30T00:00:00.000Z')],
  [
    'signed-after-the-key-retired-written-with-an-offset',
    '6',
    1,
    envelopeOf(statementOf({ signed_at: '2026-09-01T00:00:00+00:00' })),
    retiredAt('2026-08-01T00:00:00.000Z'),
  ],
  [
    'signed-at-written-with-an-offset',
    '6',
    1,
    envelopeOf(statementOf({ signed_at: '2026-07-01T09:00:00.500+00:00' })),
    KEYS,
  ],
  // As text ".5Z" sorts before "Z", so comparing the texts would take a statement signed after retirement.
  [
    'signed-half-a-second-after-the-key-retired',
    '6',
    1,
    envelopeOf(statementOf({ signed_at: '2026-07-01T09:00:00.5Z' })),
    retiredAt('2026-07-01T09:00:00Z'),
  ],
  ['signed-before-the-key-started', '6', 1, envelopeOf(statementOf({ signed_at: '2025-12-31T23:59:59.999Z' })), KEYS],
  ['key-not-after-a-date-only', '6', 1, genuine, retiredAt('2026-08-01')],
  [
    'signed-at-missing',
    '6',
    1,
    envelopeOf(
      (() => {
        const { signed_at: _, ...unsigned } = statementOf();
        return unsigned;
      })(),
    ),
    KEYS,
  ],
  ['names-another-package', '7', 1, envelopeOf(statementOf({ package_sha256: 'c'.repeat(64) })), KEYS],
  ['names-another-framework', '7', 1, envelopeOf(statementOf({ framework_sha256: 'd'.repeat(64) })), KEYS],
  ['a-withdrawal-statement', '7', 1, envelopeOf(statementOf({ type: 'withdrawal' })), KEYS],
];

mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'worked-example.package.json'), packageText);
writeFileSync(join(OUT, `framework-${framework.definition.version}.json`), canonicalJson(framework.definition));
const cases = CASES.map(([name, rule, exit, envelope, keys]) => ({ name, rule, exit, envelope, keys }));
writeFileSync(join(OUT, 'cases.json'), `${JSON.stringify(cases, null, 2)}\n`);
console.log(`${cases.length} cases written to ${OUT}`);
