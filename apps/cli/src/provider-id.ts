import { UuidSchema } from '@svc/contracts';
import { InvalidArgumentError } from 'commander';

/**
 * A <provider_id> argument, checked before any work starts: a provider id is a UUID (the contract's UuidSchema, the
 * inputs document's rule), kept in lower case as the store keeps it. Anything else (an empty argument, a name) is a
 * usage error, exit 2, rather than a search for a provider that cannot exist.
 */
export function providerIdArgument(value: string): string {
  if (!UuidSchema.safeParse(value).success)
    throw new InvalidArgumentError('must be a provider id: a UUID, as svc provider list prints it');
  return value.toLowerCase();
}

/** providerIdArgument for a [provider_id...] argument: each one checked, in the order given. */
export function providerIdsArgument(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), providerIdArgument(value)];
}
