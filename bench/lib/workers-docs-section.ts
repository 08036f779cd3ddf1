/**
 * The workers section's place in docs/benchmarks.md: between two markers, so
 * `npm run bench:workers` replaces only it, and `npm run bench`, which regenerates the rest of
 * the page, carries it over (render-report.ts).
 */

export const WORKERS_SECTION_START = "<!-- workers-section:start (npm run bench:workers) -->";
export const WORKERS_SECTION_END = "<!-- workers-section:end -->";

/** The marked block of `page` (markers included), or undefined when it has none. */
export function extractWorkersSection(page: string): string | undefined {
  const start = page.indexOf(WORKERS_SECTION_START);
  const end = page.indexOf(WORKERS_SECTION_END, start);
  if (start < 0 || end < 0) return undefined;
  return page.slice(start, end + WORKERS_SECTION_END.length);
}

/**
 * `page` with `block` (markers included) in place of its marked block, or, when it has none,
 * before its "## Machine" heading (the method notes follow), or else at the end.
 */
export function spliceWorkersSection(page: string, block: string): string {
  const current = extractWorkersSection(page);
  if (current !== undefined) return page.replace(current, () => block);
  const machine = page.search(/^## Machine$/m);
  if (machine >= 0) return `${page.slice(0, machine)}${block}\n\n${page.slice(machine)}`;
  return `${page.trimEnd()}\n\n${block}\n`;
}

/** A regenerated `page` that keeps the workers block `previous` had. */
export function keepWorkersSection(previous: string, page: string): string {
  const block = extractWorkersSection(previous);
  return block === undefined ? page : spliceWorkersSection(page, block);
}
