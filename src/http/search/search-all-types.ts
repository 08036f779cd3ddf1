/**
 * A query at the service root (RFC 7644 §3.4.2.1, `GET /` and `POST /.search` of §3.4.3): "all
 * resources within the server SHALL be included, subject to filtering". The resources of every
 * type form one list in the order every store already follows (`compareListEntries`: the sort
 * key, then the id), merged from one store walk per type; index paging and RFC 9865 cursors page
 * through that one list.
 *
 * One cursor for the whole list, not one per type: the client sees a single ListResponse whose
 * order interleaves the types, so the place it stopped is one position (sort key and id) in that
 * order. The position is where every type resumes, because ids are UUIDs the core assigned
 * (unique across types) and each type's store walk is that same order restricted to the type.
 */
import { ScimType, badRequest } from "../../errors.js";
import { unwrap } from "../../result.js";
import { narrowFilter } from "../../scim/filter/narrow-filter.js";
import { parseFilter } from "../../scim/filter/parse-filter.js";
import { resolveFilter } from "../../scim/filter/resolve-filter.js";
import { compareListEntries, sortKeyOf, type ListEntry } from "../../scim/list/sort-key.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { Tolerances } from "../../scim/compatibility/compatibility-profile.js";
import { formatPath } from "../../scim/schema/resolved-path.js";
import type { ListRequest, SortPosition, SortSpec, StoredResource } from "../../store/resource-store.js";
import { resourceView } from "../../store/resource-view.js";
import type { WorkPermit } from "../fair-share/expensive-work-gate.js";
import { decodeCursor, encodeCursor, type CursorScope, type CursorState } from "./list-cursor.js";
import type { ListParameters } from "./list-parameters.js";
import { checkCursorPaging, firstIndex, pageSize, renderStoredPage, resolveSort, type ListPageConfig } from "./list-resources-page.js";
import { type ServiceContext, compatibilityOf } from "../resource-service/resource-service.js";
import type { TypeHandler } from "../resource-service/type-handler.js";

/** A search of every resource type at once. */
export interface SearchAllTypesRequest {
  readonly context: ServiceContext;
  /** The query's parameters as read from the URL or the `/.search` body, not yet validated. */
  readonly parameters: ListParameters;
  /** Whether the resources of `type` carry members (the response's projection of the type includes them). */
  readonly members: (type: TypeHandler) => boolean;
  /**
   * Asked once, with each type's store request in turn until one answers with a permit: the
   * search is expensive when any of its per-type requests is (architecture §4b). The permit covers
   * every store walk and the rendering. Absent: the search runs at once.
   */
  readonly admit?: (request: ListRequest) => Promise<WorkPermit | undefined>;
}

/** A resource of the search, rendered, with the type whose projection applies to it. */
export interface SearchHit {
  readonly type: TypeHandler;
  readonly resource: ScimObject;
}

/** One page of the search, normalized for the ListResponse. */
export interface SearchAllTypesOutcome {
  /** The sum over the types of their matches. */
  readonly totalResults: number;
  /** The page, in list order: types interleave. */
  readonly hits: readonly SearchHit[];
  /** For index paging, the 1-based index of the first result. */
  readonly startIndex?: number;
  /** For cursor paging (RFC 9865), the cursor of the next page when there is one. */
  readonly nextCursor?: string;
  readonly cursorPaging: boolean;
}

/** How one type takes part: its filter and sort as the store receives them. */
interface TypePlan {
  readonly type: TypeHandler;
  readonly scope: Omit<ListRequest, "page">;
  /** Undefined when the type cannot be sorted by `sortBy`: its resources have no value, and sort as such. */
  readonly sort: SortSpec | undefined;
}

/** A resource waiting in a type's stream, with its place in the list. */
interface Pending {
  readonly stored: StoredResource;
  readonly entry: ListEntry;
}

/** The filter of each type; `undefined` leaves the type out (its filter holds for none of its resources). */
function filtersOf(
  config: ListPageConfig,
  types: readonly TypeHandler[],
  text: string | undefined,
  tolerances: Tolerances,
): Map<TypeHandler, ListRequest["filter"] | "all"> {
  const filters = new Map<TypeHandler, ListRequest["filter"] | "all">();
  if (text === undefined) {
    for (const type of types) filters.set(type, "all");
    return filters;
  }
  const parsed = unwrap(parseFilter(text, config.filterLimits));
  const narrowed = types.map((type) => ({ type, ...narrowFilter(type.schema, parsed) }));
  // RFC 7644 §3.4.2.2: an attribute no resource type defines makes the filter invalid, as it does
  // at a type's endpoint; checked before any type binds what is left, the more basic problem first.
  const unknown = [...(narrowed[0]?.unknownPaths ?? [])].find((path) => narrowed.every(({ unknownPaths }) => unknownPaths.has(path)));
  if (unknown !== undefined) {
    throw badRequest(
      ScimType.invalidFilter,
      `Invalid filter: no resource type defines the attribute "${unknown}" (searched: ${types.map((type) => type.id).join(", ")}).`,
    );
  }
  for (const { type, filter } of narrowed) {
    if (filter === true) filters.set(type, "all");
    else if (filter !== false) filters.set(type, unwrap(resolveFilter(type.schema, filter, tolerances)));
  }
  return filters;
}

/**
 * The sort of each type, and the canonical `sortBy` text for the cursor: a type that does not
 * define the attribute lists unsorted (its resources have no value, RFC 7644 §3.4.2.1), and an
 * attribute no type can sort by is 400 as at a type's endpoint.
 */
function sortsOf(
  config: ListPageConfig,
  types: readonly TypeHandler[],
  parameters: ListParameters,
): { readonly sorts: Map<TypeHandler, SortSpec>; readonly order: "ascending" | "descending" } {
  const sorts = new Map<TypeHandler, SortSpec>();
  const text = parameters.sortBy?.trim();
  if (!config.canSort || text === undefined || text === "") return { sorts, order: "ascending" };
  for (const type of types) {
    if (!type.schema.resolvePath(text).ok) continue;
    const sort = resolveSort(type, parameters, true);
    if (sort) sorts.set(type, sort);
  }
  const [first] = sorts.values();
  if (first) return { sorts, order: first.order };
  const [anyType] = types;
  // No type defines it: the first type's refusal names the attribute and why.
  if (anyType) resolveSort(anyType, parameters, true);
  return { sorts, order: "ascending" };
}

/** Where a type's walk resumes after the list position `after`; `"done"` when every resource of the type comes before it. */
function resumeOf(plan: TypePlan, after: SortPosition, order: "ascending" | "descending"): SortPosition | undefined | "done" {
  if (plan.sort || after.key === null) return after;
  // The type has no value to sort by: all its resources sit together where a missing value sorts.
  return compareListEntries({ key: null, id: "" }, after, order) > 0 ? undefined : "done";
}

/** The page `request` asks for, of the resources of every type in `types`. */
export async function searchAllTypes(
  config: ListPageConfig,
  types: readonly TypeHandler[],
  request: SearchAllTypesRequest,
): Promise<SearchAllTypesOutcome> {
  const { context, parameters } = request;
  const filters = filtersOf(config, types, parameters.filter, compatibilityOf(context).tolerances);
  const { sorts, order } = sortsOf(config, types, parameters);
  const count = pageSize(config, parameters);
  const plans: TypePlan[] = [];
  for (const type of types) {
    const filter = filters.get(type);
    if (filter === undefined) continue;
    const sort = sorts.get(type);
    plans.push({
      type,
      sort,
      scope: {
        orgId: context.orgId,
        resourceType: type.id,
        ...(filter === "all" ? {} : { filter }),
        ...(sort ? { sort } : {}),
        members: request.members(type) && type.hasMembers,
      },
    });
  }

  const cursorPaging = parameters.cursor !== undefined;
  let resumed: CursorState | undefined;
  let cursorScope: CursorScope | undefined;
  if (cursorPaging) {
    checkCursorPaging(config, parameters);
    // One (sort key, id) position resumes every type only when no id names resources of two types.
    if (config.idsUniqueAcrossTypes === false) {
      throw badRequest(
        ScimType.invalidValue,
        "Cursor paging at the service root needs ids unique across resource types, and this service numbers each type on its own; page with startIndex and count, or use each type's endpoint.",
      );
    }
    const [sorted] = sorts.values();
    cursorScope = {
      orgId: context.orgId,
      // Bound to the root and to the types searched: a cursor of one type's list is not one of this list.
      resourceType: `/${types.map((type) => type.id).join(",")}`,
      filter: parameters.filter ?? "",
      sortBy: sorted ? formatPath(sorted.path) : "",
      sortOrder: sorted ? order : "",
      secret: config.cursorSecret,
    };
    resumed = parameters.cursor === "" ? undefined : decodeCursor(parameters.cursor ?? "", cursorScope);
  }
  const startIndex = cursorPaging ? 1 : firstIndex(parameters);

  // The classifier judges each type's part as the page it is: the same filter, sort and page size.
  const described = (plan: TypePlan): ListRequest => ({
    ...plan.scope,
    page: cursorPaging
      ? { kind: "cursor", ...(resumed ? { after: resumed.position } : {}), count: count + 1 }
      : { kind: "index", startIndex, count },
  });
  let permit: WorkPermit | undefined;
  for (const plan of plans) {
    if (permit || !request.admit) break;
    permit = await request.admit(described(plan));
  }
  try {
    if (count === 0) {
      let total = 0;
      for (const plan of plans)
        total += (await config.store.list({ ...plan.scope, page: { kind: "index", startIndex: 1, count: 0 } })).totalResults;
      return { totalResults: total, hits: [], ...(cursorPaging ? {} : { startIndex }), cursorPaging };
    }
    return await merge(config, plans, order, {
      context,
      skip: startIndex - 1,
      take: count,
      resumed,
      cursorScope,
    });
  } finally {
    permit?.release();
  }
}

interface MergeWindow {
  readonly context: ServiceContext;
  /** Resources to pass over before the page (index paging). */
  readonly skip: number;
  readonly take: number;
  readonly resumed: CursorState | undefined;
  /** Set for cursor paging. */
  readonly cursorScope: CursorScope | undefined;
}

/** One type's walk: what it has read and not yet merged, and where its next read starts. */
interface Stream {
  readonly plan: TypePlan;
  pending: Pending[];
  /** Index in `pending` of the next resource to merge. */
  head: number;
  after: SortPosition | undefined;
  read: number;
  done: boolean;
  /** The type's matches, counted by its first read (not on a resumed walk, whose cursor carries the total). */
  total: number;
}

/**
 * Walks every type's list in step, always taking the resource that comes first in the list
 * order, until the page (and, for a cursor, one resource more) is taken. Each type is read in
 * batches no larger than what the page can still use, so a first page reads about a page per type.
 */
async function merge(
  config: ListPageConfig,
  plans: readonly TypePlan[],
  order: "ascending" | "descending",
  window: MergeWindow,
): Promise<SearchAllTypesOutcome> {
  const { context, skip, take, resumed, cursorScope } = window;
  const needed = skip + take + (cursorScope ? 1 : 0);
  // Resources passed over need no members: with a window that skips, the page's own are read afterwards.
  const walkMembers = skip === 0;
  const streams: Stream[] = plans.map((plan) => {
    const resume = resumed ? resumeOf(plan, resumed.position, order) : undefined;
    return { plan, pending: [], head: 0, after: resume === "done" ? undefined : resume, read: 0, done: resume === "done", total: 0 };
  });

  const refill = async (stream: Stream, want: number): Promise<void> => {
    const { plan } = stream;
    // No store call reads more than a page and the one resource after it: the host's bound on one read.
    const batch = Math.min(want, config.maxPageSize + 1);
    // Keyset walks when the store has them: each batch starts where the last ended, at no cost per skipped row.
    const page: ListRequest["page"] = config.canCursor
      ? { kind: "cursor", ...(stream.after ? { after: stream.after } : {}), count: batch }
      : { kind: "index", startIndex: stream.read + 1, count: batch };
    const countTotal = stream.read === 0 && resumed === undefined;
    const result = await config.store.list({
      ...plan.scope,
      members: plan.scope.members && walkMembers,
      page,
      ...(countTotal ? {} : { countTotal: false }),
    });
    if (countTotal) stream.total = result.totalResults;
    stream.read += result.resources.length;
    stream.done = result.resources.length < batch;
    stream.pending = result.resources.map((stored) => ({
      stored,
      entry: { key: plan.sort ? sortKeyOf(resourceView(plan.type.id, stored), plan.sort.path) : null, id: stored.id },
    }));
    stream.head = 0;
    const last = stream.pending[stream.pending.length - 1];
    if (last) stream.after = last.entry;
  };

  const taken: { plan: TypePlan; pending: Pending }[] = [];
  let consumed = 0;
  let more = false;
  // Every type is read once: its first read counts its total.
  for (const stream of streams) if (!stream.done) await refill(stream, needed);
  const totalResults = resumed ? resumed.total : streams.reduce((sum, stream) => sum + stream.total, 0);
  // A page past the end needs no walk through everything before it.
  while (consumed < needed && (resumed !== undefined || skip < totalResults)) {
    let first: Stream | undefined;
    for (const stream of streams) {
      if (stream.head === stream.pending.length && !stream.done) await refill(stream, needed - consumed);
      const head = stream.pending[stream.head];
      const best = first?.pending[first.head];
      if (head && (!best || compareListEntries(head.entry, best.entry, order) < 0)) first = stream;
    }
    const next = first?.pending[first.head];
    if (!first || !next) break;
    first.head += 1;
    consumed += 1;
    if (consumed > skip + take) more = true;
    else if (consumed > skip) taken.push({ plan: first.plan, pending: next });
  }

  const hits: SearchHit[] = [];
  // Consecutive resources of one type render together, in slices of the loop as a type's page does.
  for (let start = 0; start < taken.length; ) {
    const plan = taken[start]?.plan;
    if (!plan) break;
    let end = start;
    while (taken[end]?.plan === plan) end += 1;
    let run = taken.slice(start, end).map((item) => item.pending.stored);
    if (plan.scope.members && !walkMembers) run = await withMembers(config, plan, run);
    const rendered = await renderStoredPage(config.registry, plan.type, context, run, plan.scope.members);
    for (const resource of rendered) hits.push({ type: plan.type, resource });
    start = end;
  }
  const last = taken[taken.length - 1]?.pending.entry;
  const nextCursor =
    cursorScope && more && last ? encodeCursor({ position: { key: last.key, id: last.id }, total: totalResults }, cursorScope) : undefined;
  return {
    totalResults,
    hits,
    ...(cursorScope ? {} : { startIndex: skip + 1 }),
    ...(nextCursor ? { nextCursor } : {}),
    cursorPaging: cursorScope !== undefined,
  };
}

/** `resources` of `plan`'s type read again with their members; one deleted in between stays as it was read. */
async function withMembers(config: ListPageConfig, plan: TypePlan, resources: readonly StoredResource[]): Promise<StoredResource[]> {
  const loaded: StoredResource[] = [];
  for (const stored of resources) {
    const again = await config.store.get({ orgId: plan.scope.orgId, resourceType: plan.type.id, id: stored.id, members: true });
    loaded.push(again ?? stored);
  }
  return loaded;
}
