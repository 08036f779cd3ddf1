/**
 * Small helpers shared by the provisioning HTTP tests (users, groups, lists, cursors, bulk,
 * concurrency). They sit on top of the harness and assert every step they take.
 */
import { expect } from "vitest";
import { GROUP_SCHEMA, PATCH_SCHEMA, userBody, type TestApp } from "./harness.js";

/** Any RFC 4122/9562 UUID (the service assigns v7). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const SEARCH_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";
export const BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
export const BULK_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkResponse";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in assertions; each assertion states the shape it expects.
export type Json = Record<string, any>;

/** Creates a user over HTTP (201 asserted) and returns the response body. */
export async function createUser(t: TestApp, userName: string, extra: Record<string, unknown> = {}): Promise<Json> {
  const response = await t.post("/Users", userBody(userName, extra));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Json;
}

/** Creates a group over HTTP (201 asserted) and returns the response body. */
export async function createGroup(
  t: TestApp,
  displayName: string,
  memberIds: readonly string[] = [],
  extra: Record<string, unknown> = {},
): Promise<Json> {
  const response = await t.post("/Groups", {
    schemas: [GROUP_SCHEMA],
    displayName,
    members: memberIds.map((value) => ({ value })),
    ...extra,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Json;
}

/** A PatchOp body. */
export function patchBody(...operations: Record<string, unknown>[]): Json {
  return { schemas: [PATCH_SCHEMA], Operations: operations };
}

/** The member ids of a rendered group, sorted. */
export function memberIdsOf(group: Json): string[] {
  return ((group["members"] ?? []) as Json[]).map((member) => String(member["value"])).sort();
}

/**
 * `value` with the origin of every absolute URL (`meta.location`, members' `$ref`) replaced by
 * `<origin>`: supertest starts a server on a new port for every request, so the same resource
 * read twice carries different origins.
 */
export function withoutOrigin<T>(value: T): T {
  if (typeof value === "string") return value.replace(/^https?:\/\/[^/]+/, "<origin>") as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutOrigin(item)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutOrigin(item)])) as T;
  }
  return value;
}

/** The absolute URL the router renders for `path` under acme's base (any host and port). */
export function absoluteUrl(t: TestApp, path: string): RegExp {
  const escaped = `${t.base()}${path}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^https?://[^/]+${escaped}$`);
}

/** The userNames of a ListResponse, in order. */
export function userNamesOf(list: Json): string[] {
  return ((list["Resources"] ?? []) as Json[]).map((resource) => String(resource["userName"]));
}
