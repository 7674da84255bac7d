/** The Link header of the next page, keeping the request's other query parameters. */
export function nextLink(
  path: string,
  query: Record<string, unknown>,
  nextCursor: string | null,
): Record<string, string> {
  if (nextCursor === null) return {};
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'cursor') params.set(k, String(v));
  params.set('cursor', nextCursor);
  return { Link: `<${path}?${params.toString()}>; rel="next"` };
}
