/**
 * The target of `tree-fair-share.ts` (issue 27, points 13 and 14): the host app as `scimkit serve`
 * builds it on a SQLite file — the store's own token store (with `lastUsedAt`), suspension and
 * settings read from the analytics store, the provisioning log and the audit trail in the
 * database — with eight organizations of one tree (`holding` → `division-1` … `division-8`,
 * seeded with `USERS` users between them), a `victim` organization and a `writer` organization
 * holding one user with `WRITER_EMAILS` e-mails (the most `maxValues` allows). `TREE=off` makes
 * every organization its own fair-share group. Prints one JSON line `{"treeReady": …}` once seeded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { organizationScimSettings } from "../../server/src/analytics/organization-scim-settings.js";
import { createHostApp } from "../../server/src/host/host-server.js";
import { openHostStore } from "../../server/src/host/open-host-store.js";
import { organizationRecord } from "../../server/src/host/organization-record.fixture.js";
import { unwrap } from "../../src/result.js";
import { createResourceValidator } from "../../src/scim/schema/create-resource-validator.js";
import type { ScimObject } from "../../src/scim/schema/normalize-value.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import { uniqueKeysOf } from "../../src/store/unique-keys.js";
import { userBody } from "../lib/user-body.js";

const USERS = Number(process.env["USERS"] ?? 50_000);
const VICTIM_USERS = Number(process.env["VICTIM_USERS"] ?? 1_000);
const WRITER_EMAILS = Number(process.env["WRITER_EMAILS"] ?? 1_000);
const DIVISIONS = 8;
const tree = process.env["TREE"] !== "off";

const dir = mkdtempSync(join(tmpdir(), "scimkit-tree-"));
const database = await openHostStore(`sqlite:${join(dir, "tree.db")}`);
const { store } = database;
const analytics = database.analytics;
if (analytics === undefined) throw new Error("the SQLite host store has no analytics store");
const registry = createSchemaRegistry();
const userSchema = registry.resourceType("User");
if (!userSchema) throw new Error("no User schema");
const validator = createResourceValidator(userSchema, specProfile);

function attributesOf(body: Record<string, unknown>): ScimObject {
  const { schemas: _schemas, id: _id, meta: _meta, ...attributes } = unwrap(validator.prepare(body));
  return attributes;
}

async function seed(orgId: string, body: Record<string, unknown>): Promise<string> {
  const attributes = attributesOf(body);
  const created = await store.create({
    orgId,
    resourceType: "User",
    id: uuidv7(),
    now: new Date().toISOString(),
    attributes,
    uniqueKeys: uniqueKeysOf(userSchema, attributes),
    unknownMembers: "ignore",
  });
  return created.resource.id;
}

const divisions = Array.from({ length: DIVISIONS }, (_, index) => `division-${index + 1}`);
const organization = (id: string, parentId?: string) => organizationRecord(id, parentId);
await analytics.createOrganization(organization("holding"));
for (const orgId of divisions) await analytics.createOrganization(organization(orgId, "holding"));
await analytics.createOrganization(organization("victim"));
await analytics.createOrganization(organization("writer"));
const tokens: Record<string, string> = {};
for (const orgId of [...divisions, "victim", "writer"]) tokens[orgId] = (await database.tokens.issue(orgId, { label: "bench" })).token;

const started = performance.now();
for (const [index, orgId] of divisions.entries()) {
  const per = Math.ceil(USERS / DIVISIONS);
  for (let i = index * per; i < Math.min(USERS, (index + 1) * per); i++) await seed(orgId, userBody(i));
}
const victimIds: string[] = [];
for (let i = 0; i < VICTIM_USERS; i++) victimIds.push(await seed("victim", userBody(i)));
const writerId = await seed("writer", {
  ...userBody(0),
  emails: Array.from({ length: WRITER_EMAILS }, (_, j) => ({ value: `e${j}@n.io`, type: j === 0 ? "work" : "other" })),
});
const seedMs = performance.now() - started;

const settings = organizationScimSettings(analytics);
const requestLog = database.openRequestLog?.({ maxBodyBytes: 65_536, maxAgeMs: 7 * 86_400_000, maxEntriesPerOrg: 10_000 });
const app = createHostApp({
  store,
  auth: settings.activeOnly(database.tokens),
  compatibility: settings.compatibility,
  existingUsers: settings.existingUsers,
  analytics: { store: analytics, scimTokens: database.tokens },
  audit: database.audit,
  ...(requestLog === undefined ? {} : { requestLog }),
  log: () => {},
  onEvent: () => {},
  // The host's tree (its organizationRoots) unless TREE=off: then every organization alone.
  limits: { rateLimit: false, ...(tree ? {} : { fairShare: { group: (orgId: string) => orgId } }) },
});
const server = createServer(app);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(
    `${JSON.stringify({ treeReady: { port, tokens, divisions, victimIds, writerId, writerEmails: WRITER_EMAILS, seedMs, tree } })}\n`,
  );
});

const stop = async (): Promise<void> => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
