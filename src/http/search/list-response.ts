/** The ListResponse message (RFC 7644 §3.4.2), with RFC 9865's `nextCursor`. */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ListOutcome } from "../resource-service/resource-service.js";

export const LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/** The ListResponse body for a page whose resources are already projected. */
export function listResponseBody(outcome: ListOutcome, resources: readonly ScimObject[]): ScimObject {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: outcome.totalResults,
    itemsPerPage: resources.length,
    // RFC 9865 §2: startIndex belongs to index paging; a cursor page has nextCursor instead.
    ...(outcome.startIndex === undefined ? {} : { startIndex: outcome.startIndex }),
    ...(outcome.nextCursor === undefined ? {} : { nextCursor: outcome.nextCursor }),
    Resources: resources,
  };
}
