/** Places of each figure (methodology section 10). */
export const PLACES = { points: 4, freshness: 4, confidence: 4, contribution: 6, score: 2 } as const;
