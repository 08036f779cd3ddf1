/**
 * A SCIM token as the CLI shows it — the fields of the operator API's token resource, built field
 * by field so nothing a token store adds to its records (a digest) can reach the output.
 */
import type { TokenRecord } from "scimkit";

export type RenderedToken = Readonly<Record<string, string>>;

export function renderToken(record: TokenRecord): RenderedToken {
  return {
    id: record.id,
    source: "issued",
    ...(record.label === undefined ? {} : { label: record.label }),
    prefix: record.prefix,
    createdAt: record.createdAt,
    ...(record.rotatedAt === undefined ? {} : { rotatedAt: record.rotatedAt }),
    ...(record.lastUsedAt === undefined ? {} : { lastUsedAt: record.lastUsedAt }),
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
    ...(record.previousSecretValidUntil === undefined ? {} : { previousSecretValidUntil: record.previousSecretValidUntil }),
  };
}

/** One line of `tokens list`: the id first, then what there is of the rest. */
export function tokenLine(token: RenderedToken): string {
  return [token["id"], ...Object.entries(token).flatMap(([key, value]) => (key === "id" ? [] : [`${key}=${value}`]))].join("  ");
}
