/**
 * The key two names are the same person by: compatibility-folded (NFKC: the full-width "ｂｏｂ" is "bob") and
 * case-folded ("ALICE", "Alice" and "alice"; "STRASSE" and "straße"). Operators are unique by it (their name_key), and
 * names typed in open mode are compared by it (maker-checker).
 */
export function nameKey(name: string): string {
  return name.normalize('NFKC').trim().toUpperCase().toLowerCase().normalize('NFKC');
}
