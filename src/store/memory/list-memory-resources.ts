/**
 * `list` of the memory store: a page straight from the kept id order when nothing filters or sorts;
 * otherwise the index candidates (or every entry) scanned, sorted only up to the page's end, and
 * copied — giving the event loop a turn whenever a slice is spent (architecture §4b).
 */
import { eventLoopSlice, mapInSlices } from "../../event-loop-slice.js";
import { matchesFilter } from "../../scim/filter/matches-filter.js";
import { compareListEntries, sortKeyOf, type ListEntry } from "../../scim/list/sort-key.js";
import { filterMentions, isMembersPath, isServerPath, mentionsMembers } from "../filter-mentions.js";
import { candidateIds } from "../index-candidates.js";
import type { ListRequest, ListResult, StoredResource } from "../resource-store.js";
import { sortedPrefix } from "../sorted-prefix.js";
import { entryView, storedResourceOf, type MemoryEntry } from "./memory-entry.js";
import { type MemoryStoreState, membersOf } from "./memory-store-state.js";
import { firstIdAfter, indexedIds, sortedIds } from "./resource-table.js";
import { selectPage } from "./select-page.js";

/**
 * A scan looks at the clock every 32 entries (a few microseconds of filtering), and yields after
 * 2,048 entries at the latest: about a millisecond with the cheapest filters.
 */
const SLICE_CHECK_MASK = 31;
const SLICE_ENTRIES_MASK = 2047;

interface Match extends ListEntry {
  readonly entry: MemoryEntry;
}

/** `ResourceStore.list` over the state. */
export async function listMemoryResources(state: MemoryStoreState, request: ListRequest): Promise<ListResult> {
  const organization = state.organizations.get(request.orgId);
  const table = organization?.tables.get(request.resourceType);
  if (!organization || !table) return { totalResults: 0, resources: [] };
  const { filter, sort } = request;
  const order = sort?.order ?? "ascending";
  // Member lists are built for the view only when the answer depends on them.
  const needsMembers = (filter !== undefined && mentionsMembers(filter)) || (sort !== undefined && isMembersPath(sort.path));
  if (filter === undefined && sort === undefined) {
    // The list order is id order: page straight from the kept id order, no sort, no scan.
    const ordered = sortedIds(table);
    const count = Math.max(0, request.page.count);
    const start =
      request.page.kind === "index"
        ? Math.max(1, request.page.startIndex) - 1
        : request.page.after === undefined
          ? 0
          : firstIdAfter(ordered, request.page.after.id);
    // Page and total are taken before the first turn: the kept id order changes in place on writes.
    const pageIds = ordered.slice(start, start + count);
    const totalResults = ordered.length;
    const copies = await mapInSlices(pageIds, (id) => {
      const entry = table.entries.get(id);
      return entry ? storedResourceOf(entry, membersOf(organization, entry, request.members)) : undefined;
    });
    return { totalResults, resources: copies.filter((resource): resource is StoredResource => resource !== undefined) };
  }
  const ids = filter === undefined ? undefined : candidateIds(filter, (key) => indexedIds(table, key));
  const candidates = ids === undefined ? table.entries.values() : ids.flatMap((id) => table.entries.get(id) ?? []);

  // Most filters read attributes only; then the stored attributes serve as the view and no
  // object is built per resource, which is what a scan of 100,000 users costs otherwise.
  const needsView = (filter !== undefined && filterMentions(filter, isServerPath)) || (sort !== undefined && isServerPath(sort.path));
  const page = request.page;
  const after = page.kind === "cursor" ? page.after : undefined;
  // Only the entries up to the end of the page need an order: the rest are counted, not sorted.
  const count = Math.max(0, page.count);
  const limit = count === 0 ? 0 : page.kind === "index" ? Math.max(1, page.startIndex) - 1 + count : count;
  // A scan, sort and copy of 100,000 users takes tens of milliseconds in all: each gives the
  // event loop a turn whenever its slice is spent, so other requests are not stalled behind
  // it (architecture §4b: no request holds the loop for 50 ms). Records are replaced, never changed,
  // on write, so each one read is whole; the list reflects each resource as it was at some
  // moment of the call.
  const slice = eventLoopSlice();
  const matches: Match[] = [];
  let totalResults = 0;
  const scanned = ids === undefined ? [...candidates] : (candidates as MemoryEntry[]);
  for (let index = 0; index < scanned.length; index++) {
    if ((index & SLICE_CHECK_MASK) === SLICE_CHECK_MASK && ((index & SLICE_ENTRIES_MASK) === SLICE_ENTRIES_MASK || slice.due()))
      await slice.next();
    const entry = scanned[index] as MemoryEntry;
    const view = needsView ? entryView(request.resourceType, entry, membersOf(organization, entry, needsMembers)) : entry.attributes;
    if (filter !== undefined && !matchesFilter(view, filter)) continue;
    totalResults += 1;
    const match = { entry, id: entry.id, key: sort === undefined ? null : sortKeyOf(view, sort.path) };
    // A cursor page starts after its position: what lies before it is counted and dropped here.
    if (after === undefined || compareListEntries(match, after, order) > 0) matches.push(match);
  }
  const ordered = await sortedPrefix(matches, limit, (a, b) => compareListEntries(a, b, order), slice);
  const selected = selectPage(ordered, page, order);
  return {
    totalResults,
    resources: await mapInSlices(
      selected,
      (match) => storedResourceOf(match.entry, membersOf(organization, match.entry, request.members)),
      slice,
    ),
  };
}
