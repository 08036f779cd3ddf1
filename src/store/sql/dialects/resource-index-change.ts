/**
 * What a write did to `scimkit_resources`, as a dialect that keeps rows derived from resources
 * (SQLite's e-mail search, `SqlDialect.indexResources`) is told of it inside the write's
 * transaction.
 */
import type { ScimObject } from "../../../scim/schema/normalize-value.js";

/**
 * One change to the resource rows:
 * - `"write"`: the resource `id` of `orgId` was inserted, or its attributes replaced, and now
 *   holds `attributes`; `previous` is what it held before (absent on insert), so an index whose
 *   input did not change can skip the work.
 * - `"delete"`: the resource is about to be deleted.
 * - `"deleteOrganization"`: every resource of `orgId` is about to be deleted.
 */
export type ResourceIndexChange =
  | { readonly kind: "write"; readonly orgId: string; readonly id: string; readonly attributes: ScimObject; readonly previous?: ScimObject }
  | { readonly kind: "delete"; readonly orgId: string; readonly id: string }
  | { readonly kind: "deleteOrganization"; readonly orgId: string };
