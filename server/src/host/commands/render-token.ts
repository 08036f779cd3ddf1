/** A SCIM token on one line of `scimkit tokens`: the id first, then what there is of the rest. */
import type { RenderedScimToken } from "@scimkit/server";

export function tokenLine(token: RenderedScimToken): string {
  return [token["id"], ...Object.entries(token).flatMap(([key, value]) => (key === "id" ? [] : [`${key}=${value}`]))].join("  ");
}
