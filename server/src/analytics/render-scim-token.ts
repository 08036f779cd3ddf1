/**
 * A SCIM token as the operator API (and the `scimkit tokens` command) shows it: built field by
 * field, so nothing a token store adds to its records (a digest) can reach an answer, and never
 * the secret.
 */
import type { TokenRecord } from "scimkit";
import type { StaticTokenDescription } from "./analytics-router-options.js";

/** The token resource: string fields only, absent ones left out. */
export type RenderedScimToken = Readonly<Record<string, string>>;

/** An issued token (`source: "issued"`), from its record in the token store. */
export function renderIssuedToken(record: TokenRecord): RenderedScimToken {
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

/** The `index`-th static token of an organization: `static-<n>`, as `staticTokenVerifier` names it. */
export function renderStaticToken(description: StaticTokenDescription, index: number): RenderedScimToken {
  return {
    id: `static-${index + 1}`,
    source: "static",
    ...(typeof description.label === "string" ? { label: description.label } : {}),
    ...(typeof description.prefix === "string" ? { prefix: description.prefix } : {}),
  };
}
