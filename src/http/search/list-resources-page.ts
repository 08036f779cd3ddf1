/**
 * One page of a list (RFC 7644 §3.4.2): the client's parameters checked and clamped, turned into
 * the store's `ListRequest` — index paging, or keyset paging behind sealed RFC 9865 cursors — and
 * the page rendered for the ListResponse.
 */
import { ScimType, badRequest } from "../../errors.js";
import { eventLoopSlice, mapInSlices, pauseIfDue } from "../../event-loop-slice.js";
import { unwrap } from "../../result.js";
import type { FilterLimits } from "../../scim/filter/parse-filter.js";
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import { sortKeyOf } from "../../scim/list/sort-key.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { formatPath } from "../../scim/schema/resolved-path.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { ListRequest, ListResult, ResourceStore, SortSpec, StoredResource } from "../../store/resource-store.js";
import { resourceView } from "../../store/resource-view.js";
import { decodeCursor, encodeCursor, type CursorScope } from "./list-cursor.js";
import type { ListParameters } from "./list-parameters.js";
import { renderResource, renderResourceInSlices } from "../resource-service/render-resource.js";
import { type ListOutcome, type ListResourcesRequest, type ServiceContext, compatibilityOf } from "../resource-service/resource-service.js";
import type { TypeHandler } from "../resource-service/type-handler.js";

/** What a list needs of the router's configuration. */
export interface ListPageConfig {
  readonly store: ResourceStore;
  readonly registry: SchemaRegistry;
  readonly filterLimits: Partial<FilterLimits>;
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
  /** Key of the MAC that seals cursors (RFC 9865); see `ScimRouterOptions.cursorSecret`. */
  readonly cursorSecret: string;
  /** `StoreCapabilities.sort`: without it, sort parameters are ignored. */
  readonly canSort: boolean;
  /** `StoreCapabilities.cursor`: without it, a cursor is refused. */
  readonly canCursor: boolean;
  /** `StoreCapabilities.idsUniqueAcrossTypes`: without it, the root search refuses a cursor. Default true. */
  readonly idsUniqueAcrossTypes?: boolean;
}

/** The sort `parameters` ask of `type`, or none: 400 `invalidValue` for a path it cannot sort by. */
export function resolveSort(type: TypeHandler, parameters: ListParameters, canSort: boolean): SortSpec | undefined {
  // RFC 7644 §3.4.2.3: sorting is optional; a provider that does not sort ignores the parameters.
  if (!canSort || parameters.sortBy === undefined || parameters.sortBy.trim() === "") return undefined;
  const resolved = type.schema.resolvePath(parameters.sortBy.trim());
  if (!resolved.ok) throw badRequest(ScimType.invalidValue, `sortBy: ${resolved.reason}`);
  const leaf = resolved.path.subAttribute ?? resolved.path.attribute;
  if (leaf.type === "complex" && !leaf.subAttributes?.some((sub) => sub.name === "value")) {
    throw badRequest(ScimType.invalidValue, `sortBy: "${parameters.sortBy}" is a complex attribute; name one of its sub-attributes.`);
  }
  if (type.hasMembers && resolved.path.attribute.name === "members") {
    throw badRequest(ScimType.invalidValue, "sortBy: groups cannot be sorted by their members.");
  }
  const order = (parameters.sortOrder ?? "ascending").trim().toLowerCase();
  if (order !== "ascending" && order !== "descending") {
    throw badRequest(ScimType.invalidValue, `sortOrder must be "ascending" or "descending"; got ${JSON.stringify(parameters.sortOrder)}.`);
  }
  return { path: resolved.path, order };
}

/** The page size `parameters` ask for, clamped (RFC 7644 §3.4.2.4: a negative count is 0, one over the maximum is the maximum). */
export function pageSize(config: Pick<ListPageConfig, "defaultPageSize" | "maxPageSize">, parameters: ListParameters): number {
  return Math.min(Math.max(parameters.count ?? config.defaultPageSize, 0), config.maxPageSize);
}

/** The 1-based index of an index page (RFC 7644 §3.4.2.4: a value below 1 is read as 1). */
export function firstIndex(parameters: ListParameters): number {
  return Math.min(Math.max(parameters.startIndex ?? 1, 1), Number.MAX_SAFE_INTEGER);
}

/** Refuses a cursor the store cannot follow, or one sent with `startIndex` (RFC 9865 §2). */
export function checkCursorPaging(config: Pick<ListPageConfig, "canCursor">, parameters: ListParameters): void {
  if (!config.canCursor)
    throw badRequest(ScimType.invalidValue, "This service does not support cursor paging (RFC 9865); page with startIndex and count.");
  if (parameters.startIndex !== undefined) {
    throw badRequest(ScimType.invalidValue, "Use either cursor or startIndex, not both (RFC 9865 §2).");
  }
}

/**
 * A page of `type`'s resources rendered for the ListResponse. A page is as large as the host's
 * `paging.maxPageSize` allows: rendered in slices of the loop.
 */
export async function renderStoredPage(
  registry: SchemaRegistry,
  type: TypeHandler,
  context: ServiceContext,
  resources: readonly StoredResource[],
  members: boolean,
): Promise<ScimObject[]> {
  const { baseUrl } = context;
  // The organization's profile decides whether an emptied multi-valued attribute shows as [].
  const { emptyMultiValued } = compatibilityOf(context).responses;
  if (!members) return mapInSlices(resources, (stored) => renderResource(registry, type.schema, baseUrl, stored, emptyMultiValued));
  // Groups with their members: one of them alone can outlast a slice, so each is rendered in
  // slices of the same clock, and the clock is asked between them too.
  const slice = eventLoopSlice();
  const page: ScimObject[] = [];
  for (const stored of resources) {
    page.push(await renderResourceInSlices(registry, type.schema, baseUrl, stored, slice, emptyMultiValued));
    await pauseIfDue(slice);
  }
  return page;
}

/** The page `request` asks for, of the resources of `type`. */
export async function listResourcesPage(config: ListPageConfig, type: TypeHandler, request: ListResourcesRequest): Promise<ListOutcome> {
  const { context, parameters } = request;
  const filter =
    parameters.filter === undefined
      ? undefined
      : unwrap(compileFilter(type.schema, parameters.filter, config.filterLimits, compatibilityOf(context).tolerances));
  const sort = resolveSort(type, parameters, config.canSort);
  const count = pageSize(config, parameters);
  const scope = {
    orgId: context.orgId,
    resourceType: type.id,
    ...(filter ? { filter } : {}),
    ...(sort ? { sort } : {}),
    members: request.members && type.hasMembers,
  };
  // Only a request that has passed validation takes a turn; the permit covers the store's work
  // and the rendering of its page, the part that grows with the organization (architecture §4b).
  const listed = async <T>(storeRequest: ListRequest, finish: (page: ListResult) => Promise<T>): Promise<T> => {
    const permit = await request.admit?.(storeRequest);
    try {
      return await finish(await config.store.list(storeRequest));
    } finally {
      permit?.release();
    }
  };
  const rendered = (resources: readonly StoredResource[]): Promise<ScimObject[]> =>
    renderStoredPage(config.registry, type, context, resources, scope.members);
  if (parameters.cursor === undefined) {
    const startIndex = firstIndex(parameters);
    return listed({ ...scope, page: { kind: "index", startIndex, count } }, async (page) => ({
      totalResults: page.totalResults,
      resources: await rendered(page.resources),
      startIndex,
      cursorPaging: false,
    }));
  }
  checkCursorPaging(config, parameters);
  const cursorScope: CursorScope = {
    orgId: context.orgId,
    resourceType: type.id,
    filter: parameters.filter ?? "",
    sortBy: sort ? formatPath(sort.path) : "",
    sortOrder: sort?.order ?? "",
    secret: config.cursorSecret,
  };
  const resumed = parameters.cursor === "" ? undefined : decodeCursor(parameters.cursor, cursorScope);
  if (count === 0) {
    return listed({ ...scope, page: { kind: "index", startIndex: 1, count: 0 } }, async (page) => ({
      totalResults: page.totalResults,
      resources: [],
      cursorPaging: true,
    }));
  }
  // One more than asked tells whether a next page exists without a second query; the total was
  // counted on the walk's first page and travels in the cursor.
  const storeRequest: ListRequest = {
    ...scope,
    page: { kind: "cursor", ...(resumed ? { after: resumed.position } : {}), count: count + 1 },
    ...(resumed ? { countTotal: false } : {}),
  };
  return listed(storeRequest, async (page) => {
    const totalResults = resumed ? resumed.total : page.totalResults;
    const resources = page.resources.slice(0, count);
    const last = resources[resources.length - 1];
    const nextCursor =
      page.resources.length > count && last
        ? encodeCursor(
            { position: { key: sort ? sortKeyOf(resourceView(type.id, last), sort.path) : null, id: last.id }, total: totalResults },
            cursorScope,
          )
        : undefined;
    return {
      totalResults,
      resources: await rendered(resources),
      ...(nextCursor ? { nextCursor } : {}),
      cursorPaging: true,
    };
  });
}
