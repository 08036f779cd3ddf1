/**
 * Walking one organization's resources of a type in id order through the `ResourceStore` API, a
 * chunk per call, so the memory analytics store reads learners and the directory without holding
 * a whole organization at once.
 */
import type { ListRequest, ResourceStore, StoredResource } from "scimkit/store";
import { compareKeys } from "./keyset-page.js";

/** Resources read per `ResourceStore.list` call. */
const CHUNK = 1000;

/**
 * The organization's resources of `resourceType` after `afterId` (from the first without it), in
 * id order. By cursor where the store pages by cursor; otherwise by index from the start, the ids
 * up to `afterId` skipped here.
 *
 * @example for await (const user of walkResources(store, "acme", "User", undefined, false)) …
 */
export async function* walkResources(
  resources: ResourceStore,
  orgId: string,
  resourceType: string,
  afterId: string | undefined,
  members: boolean,
): AsyncGenerator<StoredResource> {
  const byCursor = resources.capabilities?.cursor !== false;
  let position = afterId;
  let startIndex = 1;
  for (;;) {
    const request: ListRequest = {
      orgId,
      resourceType,
      members,
      countTotal: false,
      page: byCursor
        ? { kind: "cursor", count: CHUNK, ...(position === undefined ? {} : { after: { key: null, id: position } }) }
        : { kind: "index", startIndex, count: CHUNK },
    };
    const { resources: found } = await resources.list(request);
    for (const resource of found) {
      // Index paging starts at the beginning, so the ids up to the position are skipped here.
      if (byCursor || position === undefined || compareKeys(resource.id, position) > 0) yield resource;
    }
    const last = found[found.length - 1];
    if (found.length < CHUNK || last === undefined) return;
    if (byCursor) position = last.id;
    startIndex += found.length;
  }
}
