/**
 * A page of a sequential `startIndex` walk (issue 29), for a SQL store whose lists have a
 * generation (`listGenerationColumn`): page k+1 is read as a keyset range after the position
 * remembered where page k ended (`rememberedPositions`), instead of skipping k rows, and its
 * `totalResults` is the one remembered with the position. The SQL store (`listResources`) and the
 * table store (`listTable`) read their rows their own way and share the decisions here.
 */
import type { CursorPage, IndexPage, ListRequest, ListResult, StoredResource } from "../resource-store.js";
import type { RememberedPositions } from "../remembered-positions.js";
import { resourceView } from "../resource-view.js";
import { sortKeyOf } from "../../scim/list/sort-key.js";
import { formatPath } from "../../scim/schema/resolved-path.js";
import { generationOf, type GenerationRow } from "./list-generation.js";
import { totalFromPage } from "./total-from-page.js";

/** A page of a list whose walk may follow remembered positions (`startIndexWalk`). */
export interface StartIndexWalk {
  /** The list request. */
  readonly request: ListRequest;
  /** Its page: an index page of at least one row. */
  readonly page: IndexPage;
  /** The name of its list among the organization's remembered positions. */
  readonly list: string;
  /** Where the store remembers positions. */
  readonly positions: RememberedPositions;
}

/**
 * The walk `request` is a page of, when its positions can be followed: an index page with rows,
 * no filter, and the default order or a sort by one of `immutablePaths` (core paths as
 * `formatPath` writes them) — orders no update can change, so only a create or a delete, which
 * move the list's generation, can shift what lies at an offset. Any other list pages by OFFSET
 * (cursors, RFC 9865, page any list in constant time). Undefined without `positions`.
 */
export function startIndexWalk(
  request: ListRequest,
  positions: RememberedPositions | undefined,
  immutablePaths: ReadonlySet<string>,
): StartIndexWalk | undefined {
  const { page, sort } = request;
  if (!positions || page.kind !== "index" || page.count <= 0 || request.filter !== undefined) return undefined;
  if (sort === undefined) return { request, page, positions, list: `${request.resourceType}\n` };
  if (sort.path.extension || !immutablePaths.has(formatPath(sort.path))) return undefined;
  return { request, page, positions, list: `${request.resourceType}\n${formatPath(sort.path)}\n${sort.order}` };
}

/** How a store reads a walk's page: each statement reads the list's generation beside its rows. */
export interface WalkReads<R extends GenerationRow> {
  /** The list's rows at `at`, in the list order: the index page by OFFSET, or a keyset range after a position. */
  rows(at: IndexPage | CursorPage): Promise<readonly R[]>;
  /** The list's size as `total`, in the same statement as its generation. */
  count(): Promise<GenerationRow & { readonly total: unknown }>;
  /** The resources of `rows`, with their members when the request asks for them. */
  resources(rows: readonly R[]): Promise<StoredResource[]>;
}

/**
 * The page of `walk`, exactly as OFFSET would give it. A remembered position is followed only
 * where the rows it gives carry the generation it was remembered at — read in their own
 * statement's snapshot, so no create or delete came between — and a position is remembered only
 * with the generation its rows and total were read at. Run `reads` in one snapshot when the
 * resources need more statements than the rows (members, child rows).
 */
export async function walkPage<R extends GenerationRow>(walk: StartIndexWalk, reads: WalkReads<R>): Promise<ListResult> {
  const { request, page, list, positions } = walk;
  const { sort } = request;
  const offset = Math.max(1, page.startIndex) - 1;
  const remember = async (rows: readonly R[], generation: string | undefined, totalResults: number): Promise<ListResult> => {
    const resources = await reads.resources(rows);
    const last = resources[resources.length - 1];
    if (last && generation !== undefined) {
      const after = { key: sort ? sortKeyOf(resourceView(request.resourceType, last), sort.path) : null, id: last.id };
      positions.set(request.orgId, list, offset + rows.length, { generation, after, total: totalResults });
    }
    return { totalResults, resources };
  };
  const known = offset === 0 ? undefined : positions.get(request.orgId, list, offset);
  if (known) {
    const rows = await reads.rows({ kind: "cursor", after: known.after, count: page.count });
    if (rows[0] && generationOf(rows[0]) === known.generation) return remember(rows, known.generation, known.total);
  }
  const rows = await reads.rows(page);
  const generation = rows[0] ? generationOf(rows[0]) : undefined;
  const fromPage = totalFromPage(page, rows.length);
  if (fromPage !== undefined) return remember(rows, generation, fromPage);
  const counted = await reads.count();
  return remember(rows, generationOf(counted) === generation ? generation : undefined, Number(counted.total));
}
