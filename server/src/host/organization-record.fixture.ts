/** An active organization record for tests and benchmarks that build organization trees. */
import type { Organization } from "@scimkit/server";

/** Organization `id`, named after itself, under `parentId` when given (a root otherwise). */
export function organizationRecord(id: string, parentId?: string, at: string = new Date().toISOString()): Organization {
  return { id, name: id, status: "active", createdAt: at, updatedAt: at, ...(parentId === undefined ? {} : { parentId }) };
}
