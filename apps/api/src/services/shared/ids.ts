import { randomBytes } from 'node:crypto';

/** A new identifier of this service: a prefix naming the kind (`ws`, `key`, `iss`, `cr`...) and 24 hex digits. */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;
