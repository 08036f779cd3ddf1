/**
 * Users with e-mails, written straight to a SQL store: what the e-mail search migrations' tests
 * (5, 8) index and query.
 */
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { SqlStore } from "../sql-store.js";

export const NOW = "2024-01-01T00:00:00.000Z";

export type Email = Readonly<Record<string, unknown>>;

export const userAttributes = (userName: string, emails: readonly Email[]): ScimObject => ({
  userName,
  ...(emails.length > 0 ? { emails: [...emails] } : {}),
});
export const work = (value: string): Email => ({ value, type: "work" });
export const home = (value: string): Email => ({ value, type: "home" });

export async function createUser(store: SqlStore, orgId: string, id: string, emails: readonly Email[]): Promise<void> {
  await store.create({
    orgId,
    resourceType: "User",
    id,
    now: NOW,
    attributes: userAttributes(id, emails),
    uniqueKeys: [{ attribute: "userName", value: id }],
    unknownMembers: "ignore",
  });
}

export async function replaceUser(store: SqlStore, orgId: string, id: string, attributes: ScimObject): Promise<void> {
  await store.update({
    orgId,
    resourceType: "User",
    id,
    now: NOW,
    attributes,
    uniqueKeys: [{ attribute: "userName", value: String(attributes["userName"]) }],
    unknownMembers: "ignore",
    members: false,
  });
}
