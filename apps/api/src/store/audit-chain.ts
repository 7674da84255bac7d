import { canonicalJson, sha256Hex } from '@svc/methodology';

/**
 * The audit trail's chain rule, shared by the writer, the verifier and the migration that starts the chain: an
 * entry's hash is the SHA-256 of the RFC 8785 form of the entry without its hash, and each entry names the hash of
 * the one before (the first names 64 zeros). Changing any field of any entry, removing one or reordering them
 * breaks the chain at that entry.
 */

export const GENESIS_HASH = '0'.repeat(64);

export type AuditActorType = 'operator' | 'api_key' | 'system';

export interface AuditActor {
  type: AuditActorType;
  /** The operator's or the key's id; null for the system and for a name typed in open mode. */
  id: string | null;
  /** The operator's name, the key's name, or what the system was doing; null when none was given. */
  name: string | null;
}

export interface AuditSubject {
  type: string;
  id: string;
}

/** An entry as it is hashed and shown: every field but `hash`. */
export interface AuditEntryBody {
  seq: number;
  at: string;
  actor: AuditActor;
  action: string;
  subject: AuditSubject;
  details: Record<string, unknown>;
  prev_hash: string;
}

export interface AuditEntry extends AuditEntryBody {
  hash: string;
}

export function auditHash(entry: AuditEntryBody): string {
  const { seq, at, actor, action, subject, details, prev_hash } = entry;
  return sha256Hex(
    canonicalJson({
      seq,
      at,
      actor: { type: actor.type, id: actor.id, name: actor.name },
      action,
      subject: { type: subject.type, id: subject.id },
      details,
      prev_hash,
    }),
  );
}
