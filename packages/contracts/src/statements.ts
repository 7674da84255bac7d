import { z } from 'zod';
import { RiskBandSchema, RiskIndicatorIdSchema, TimestampSchema, UuidSchema } from './common.js';
import { RatingActionFields } from './rating-actions.js';

// ---- signed statements and the keys that sign them (decision 0026) ----

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const ChainFields = {
  prev_statement_sha256: Sha256.nullable().meta({
    description: "SHA-256 of the RFC 8785 bytes of the provider's previous statement; null for its first.",
  }),
  audit_head: z
    .object({ seq: z.number().int(), hash: Sha256 })
    .meta({ description: 'The audit trail entry written with this statement: its seq and hash.' }),
  signed_at: TimestampSchema,
};

export const PublicationStatementSchema = z
  .object({
    type: z.literal('publication'),
    risk_indicator_id: RiskIndicatorIdSchema,
    provider_id: UuidSchema,
    provider_name: z.string(),
    final_score: z.number(),
    risk_band: RiskBandSchema,
    confidence: z.number(),
    framework_version: z.string(),
    framework_sha256: Sha256,
    inputs_sha256: Sha256,
    result_sha256: Sha256,
    package_sha256: Sha256.meta({
      description: 'SHA-256 of the computation package bytes GET /api/v1/computation/{id} answers.',
    }),
    evaluation_date: z.string(),
    published_at: TimestampSchema,
    ...ChainFields,
  })
  .meta({ id: 'PublicationStatement' });

export const WithdrawalStatementSchema = z
  .object({
    type: z.literal('withdrawal'),
    risk_indicator_id: RiskIndicatorIdSchema,
    provider_id: UuidSchema,
    provider_name: z.string(),
    framework_version: z.string(),
    previous_score: z.number(),
    previous_band: RiskBandSchema,
    reason: z.string().nullable(),
    withdrawn_at: TimestampSchema,
    ...ChainFields,
  })
  .meta({ id: 'WithdrawalStatement' });

export const RatingActionStatementSchema = z
  .object({
    type: z.literal('rating_action'),
    provider_id: UuidSchema,
    risk_indicator_id: RiskIndicatorIdSchema,
    action: z.object(RatingActionFields).meta({
      description:
        'The action as it took effect: the fields GET /api/public/rating-actions serves for it, without `signature`.',
    }),
    ...ChainFields,
  })
  .meta({ id: 'RatingActionStatement' });

export const SignedStatementSchema = z
  .object({
    statement: z.discriminatedUnion('type', [
      PublicationStatementSchema,
      WithdrawalStatementSchema,
      RatingActionStatementSchema,
    ]),
    signature: z
      .string()
      .meta({ description: 'base64url of the Ed25519 signature over the RFC 8785 bytes of `statement`.' }),
    kid: z
      .string()
      .meta({ description: 'The signing key, as the JWKS at /.well-known/svc-signing-keys.json names it.' }),
    alg: z.literal('EdDSA'),
    statement_sha256: Sha256.meta({ description: 'SHA-256 of the RFC 8785 bytes of `statement`.' }),
  })
  .meta({ id: 'SignedStatement' });

export const PublicationParamsSchema = z.strictObject({ riskIndicatorId: RiskIndicatorIdSchema });

export const StatementParamsSchema = z.strictObject({
  statementSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be a statement_sha256: 64 lowercase hex digits')
    .meta({ description: 'The SHA-256 of the RFC 8785 bytes of the statement, 64 lowercase hex digits.' }),
});

export const SigningKeysResponseSchema = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: z.string().meta({ description: 'The raw 32-byte public key, base64url (RFC 8037).' }),
        kid: z.string().meta({ description: 'The first 16 hex digits of SHA-256 of the raw public key.' }),
        use: z.literal('sig'),
        alg: z.literal('EdDSA'),
        status: z.enum(['active', 'retired']),
        not_before: TimestampSchema,
        not_after: TimestampSchema.optional().meta({ description: 'When it stopped signing; absent while active.' }),
      }),
    ),
  })
  .meta({ id: 'SigningKeys' });

export type SignedStatementResponse = z.infer<typeof SignedStatementSchema>;
export type SigningKeysResponse = z.infer<typeof SigningKeysResponseSchema>;
