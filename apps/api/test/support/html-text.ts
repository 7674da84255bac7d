/**
 * Text as the service's HTML must carry it, written out here rather than taken from the code under test: the five
 * characters HTML gives meaning to, and the backtick, escaped.
 */
export function htmlText(text: string): string {
  const entities: Record<string, string> = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#39;',
    '`': '&#96;',
  };
  return text.replace(/[&<>"'`]/g, (c) => entities[c] as string);
}
