/**
 * Splitting long lists into statements a database accepts: a replace of 100,000 members is more
 * bind parameters than SQLite or PostgreSQL take in one statement.
 */

/**
 * `items` in consecutive slices of at most `size` (at least one item each); none for an empty list.
 *
 * @example chunksOf(["a", "b", "c"], 2) // [["a", "b"], ["c"]]
 */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const step = Math.max(1, Math.floor(size));
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += step) chunks.push(items.slice(start, start + step));
  return chunks;
}
