/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
}

/** Every item of every page, fetching the next page only when the items before it have been consumed. */
export async function* eachItem<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}
