/**
 * Bearer tokens are secrets (spec §5): the token store keeps only their SHA-256 digests, and a
 * token never shows up in anything the service writes — the host's request log, error bodies,
 * lifecycle events, `onError` reports, the audit trail. Driven through the example host with a
 * valid token, a wrong one and another organization's, on both token repositories (memory and
 * SQL), each recording everything it is handed. Rotation and revocation taking effect on the next
 * request are tested in `auth-and-tenancy.test.ts`; the constant-time comparison, by counting the
 * `timingSafeEqual` calls of each path, in `src/auth/*.test.ts`.
 */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createHostApp } from "../../src/host/host-server.js";
import type { AuditEntry } from "../../../src/audit/audit-sink.js";
import { createTokenStore, type TokenStore } from "../../../src/auth/hashed-token-store.js";
import { memoryTokenRepository } from "../../../src/auth/memory-token-repository.js";
import type { TokenRepository } from "../../../src/auth/token-repository.js";
import type { ScimEvent } from "../../../src/http/lifecycle-events/scim-event.js";
import { memoryStore } from "../../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../../src/store/resource-store.js";
import { sqliteDialect } from "../../../src/store/sql/dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "../../../src/store/sql/filter/register-sqlite-functions.js";
import { sqlStore } from "../../../src/store/sql/sql-store.js";
import type { SqlStoreDatabase } from "../../../src/store/sql/sql-tables.js";
import { GROUP_SCHEMA, PATCH_SCHEMA, userBody } from "../../../test/http/harness.js";

const HEX_DIGEST = /^[0-9a-f]{64}$/;
const BASE = "/scim/Organizations";

interface Setup {
  readonly store: ResourceStore;
  readonly tokens: TokenStore;
  /** Everything the token repository was handed (memory) or every bound parameter of every query (SQL). */
  readonly seenByStorage: () => readonly unknown[];
  /** The digests the token repository was asked to store or look up. */
  readonly digestsSeen: () => readonly string[];
  close(): Promise<void>;
}

/** The memory token repository, recording every argument of every call. */
async function memorySetup(): Promise<Setup> {
  const inner = memoryTokenRepository();
  const calls: unknown[][] = [];
  const digests: string[] = [];
  const recording: TokenRepository = {
    findByHash: (orgId, hash) => (calls.push([orgId, hash]), digests.push(hash), inner.findByHash(orgId, hash)),
    listByOrg: (orgId) => (calls.push([orgId]), inner.listByOrg(orgId)),
    insert: (token) => (calls.push([token]), digests.push(token.hash), inner.insert(token)),
    replaceHash: (orgId, id, replacement) => (
      calls.push([orgId, id, replacement]), digests.push(replacement.hash), inner.replaceHash(orgId, id, replacement)
    ),
    markUsed: (orgId, hash, at) => (calls.push([orgId, hash, at]), digests.push(hash), inner.markUsed(orgId, hash, at)),
    delete: (orgId, id) => (calls.push([orgId, id]), inner.delete(orgId, id)),
    deleteByOrg: (orgId) => (calls.push([orgId]), inner.deleteByOrg(orgId)),
  };
  return {
    store: memoryStore(),
    tokens: createTokenStore({ repository: recording, lastUsedResolutionMs: 0 }),
    seenByStorage: () => calls.flat(),
    digestsSeen: () => digests,
    close: async () => {},
  };
}

/** The SQL store on SQLite, its token repository included, logging every statement's parameters. */
async function sqlSetup(): Promise<Setup> {
  const database = new Database(":memory:");
  registerSqliteFunctions(database);
  const parameters: unknown[] = [];
  const digests: string[] = [];
  const db = new Kysely<SqlStoreDatabase>({
    dialect: new SqliteDialect({ database }),
    log(event) {
      parameters.push(...event.query.parameters);
      if (event.query.sql.includes("scimkit_tokens"))
        digests.push(...event.query.parameters.filter((value): value is string => typeof value === "string" && HEX_DIGEST.test(value)));
    },
  });
  const store = await sqlStore({ kysely: db, dialect: sqliteDialect, tokens: { lastUsedResolutionMs: 0 } });
  return {
    store,
    tokens: store.tokens,
    seenByStorage: () => parameters,
    digestsSeen: () => digests,
    close: async () => {
      await store.close();
      await db.destroy();
    },
  };
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

describe.each([
  { name: "memory token repository", open: memorySetup },
  { name: "SQL token repository (SQLite)", open: sqlSetup },
])("tokens stay secret: $name", ({ open }) => {
  it("are stored and looked up only as SHA-256 digests, and appear in no log line, body, header, event, onError report or audit entry", async () => {
    const setup = await open();
    try {
      const { tokens } = setup;
      const acme = await tokens.issue("acme", { label: "Entra" });
      const globex = await tokens.issue("globex", { label: "Okta" });
      const lines: string[] = [];
      const events: ScimEvent[] = [];
      const audit: AuditEntry[] = [];
      let failNextCreate = false;
      // A store that fails once on demand, so an onError report is among the outputs.
      const store: ResourceStore = {
        ...setup.store,
        create: (input) => {
          if (failNextCreate) {
            failNextCreate = false;
            return Promise.reject(new Error("disk on fire"));
          }
          return setup.store.create(input);
        },
      };
      const app = createHostApp({
        store,
        auth: tokens,
        log: (line) => lines.push(line),
        onEvent: (event) => void events.push(event),
        audit: { record: async (entry) => void audit.push(entry) },
        limits: { rateLimit: false },
      });
      const responses: request.Response[] = [];
      const send = async (test: request.Test): Promise<request.Response> => {
        const response = await test;
        responses.push(response);
        return response;
      };
      const as = (
        token: string,
        method: "get" | "post" | "put" | "patch" | "delete",
        path: string,
        body?: unknown,
      ): Promise<request.Response> => {
        let test = request(app)[method](path).set("Authorization", `Bearer ${token}`);
        if (body !== undefined) test = test.set("Content-Type", "application/scim+json").send(JSON.stringify(body));
        return send(test);
      };
      const acmeBase = `${BASE}/acme/v2`;
      const globexBase = `${BASE}/globex/v2`;

      // The valid token, through every kind of write and read.
      const user = (await as(acme.token, "post", `${acmeBase}/Users`, userBody("alice"))).body as { id: string };
      expect(user.id).toBeDefined();
      await as(acme.token, "get", `${acmeBase}/Users?filter=${encodeURIComponent('userName eq "alice"')}`);
      await as(acme.token, "patch", `${acmeBase}/Users/${user.id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "replace", path: "active", value: false }],
      });
      await as(acme.token, "post", `${acmeBase}/Bulk`, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        Operations: [
          {
            method: "POST",
            path: "/Groups",
            bulkId: "g",
            data: { schemas: [GROUP_SCHEMA], displayName: "Staff", members: [{ value: user.id }] },
          },
        ],
      });
      await as(acme.token, "post", `${acmeBase}/Users`, userBody("alice"));
      failNextCreate = true;
      expect((await as(acme.token, "post", `${acmeBase}/Users`, userBody("bob"))).status).toBe(500);
      // A client that also puts its token in the query string: the log leaves queries out.
      await send(request(app).get(`${acmeBase}/Users?access_token=${acme.token}`).set("Authorization", `Bearer ${acme.token}`));

      // Wrong tokens, another organization's, and the right one in the wrong scheme.
      const wrong = [`${acme.token}x`, acme.token.slice(0, -1), "scimkit_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"];
      for (const token of wrong) {
        expect((await as(token, "get", `${acmeBase}/Users`)).status).toBe(401);
        expect((await as(token, "delete", `${acmeBase}/Users/${user.id}`)).status).toBe(401);
      }
      expect((await as(globex.token, "get", `${acmeBase}/Users/${user.id}`)).status).toBe(401);
      expect((await as(globex.token, "put", `${acmeBase}/Users/${user.id}`, userBody("alice"))).status).toBe(401);
      expect((await as(acme.token, "get", `${globexBase}/Users`)).status).toBe(401);
      expect((await send(request(app).get(`${acmeBase}/Users`).set("Authorization", `Basic ${acme.token}`))).status).toBe(401);

      // Rotation and revocation: the retired secrets are refused, and leak no more than live ones.
      const rotated = await tokens.rotate("acme", acme.record.id);
      if (!rotated) throw new Error("rotation failed");
      expect((await as(acme.token, "get", `${acmeBase}/Users`)).status).toBe(401);
      expect((await as(rotated.token, "delete", `${acmeBase}/Users/${user.id}`)).status).toBe(204);
      expect(await tokens.revoke("globex", globex.record.id)).toBe(true);
      expect((await as(globex.token, "get", `${globexBase}/Users`)).status).toBe(401);

      const secrets = [acme.token, rotated.token, globex.token, ...wrong.slice(0, 2)];
      const outputs = [
        ...lines,
        ...events.map((event) => JSON.stringify(event)),
        ...audit.map((entry) => JSON.stringify(entry)),
        ...responses.map((response) => `${JSON.stringify(response.headers)}\n${response.text}`),
      ];
      // Something to search in: a log line per request, the failure's report, events, entries.
      expect(lines.some((line) => line.startsWith("error ") && line.includes("disk on fire"))).toBe(true);
      expect(lines.filter((line) => / 401 /.test(line)).length).toBeGreaterThanOrEqual(10);
      expect(events.length).toBeGreaterThan(0);
      expect(audit.map((entry) => entry.tokenId)).toContain(acme.record.id);
      for (const secret of secrets) {
        const secretPart = secret.slice("scimkit_".length);
        const digest = sha256(secret);
        for (const output of outputs) {
          expect(output).not.toContain(secretPart);
          // Nor its digest, which would let anyone holding the output test guesses offline.
          expect(output).not.toContain(digest);
        }
        // The storage never sees a token: it stores, finds and rotates by digest.
        for (const value of setup.seenByStorage()) expect(JSON.stringify(value) ?? "").not.toContain(secretPart);
      }
      const digests = setup.digestsSeen();
      expect(digests.length).toBeGreaterThan(10);
      for (const digest of digests) expect(digest).toMatch(HEX_DIGEST);
      expect(digests).toContain(sha256(acme.token));
      expect(digests).toContain(sha256(rotated.token));
      expect(digests).toContain(sha256(wrong[0]!));
    } finally {
      await setup.close();
    }
  });

  it("asks the repository the same single question for a wrong token, another organization's and an unknown organization", async () => {
    const setup = await open();
    try {
      const acme = await setup.tokens.issue("acme");
      const globex = await setup.tokens.issue("globex");
      const app = createHostApp({ store: setup.store, auth: setup.tokens, log: () => {}, limits: { rateLimit: false } });
      const questions = async (token: string, orgId: string): Promise<unknown[]> => {
        const before = setup.seenByStorage().length;
        const response = await request(app).get(`${BASE}/${orgId}/v2/Users`).set("Authorization", `Bearer ${token}`);
        expect(response.status).toBe(401);
        // What the storage was asked, with the digest masked: it differs from token to token.
        return setup
          .seenByStorage()
          .slice(before)
          .map((value) => (typeof value === "string" && HEX_DIGEST.test(value) ? "<digest>" : value));
      };
      const foreign = await questions(globex.token, "acme");
      expect(await questions(`${acme.token}x`, "acme")).toEqual(foreign);
      expect(await questions("scimkit_nobody", "acme")).toEqual(foreign);
      expect(await questions(acme.token, "initech")).toEqual(foreign.map((value) => (value === "acme" ? "initech" : value)));
    } finally {
      await setup.close();
    }
  });
});
