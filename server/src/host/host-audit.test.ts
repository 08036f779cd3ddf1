/**
 * `npm start` keeps the audit trail of SCIM writes in its store's database: the real process on a
 * SQLite file, written to over HTTP, and the `scimkit_audit` rows read back from the file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost } from "./host-process.fixture.js";

const scratch = mkdtempSync(join(tmpdir(), "scimkit-host-audit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(killHosts);

const TOKEN = "acme-audit-token-0123456789abcdef0123456789";

describe("the host server's audit trail", () => {
  // A real host process: its start alone can take several seconds on a loaded machine.
  it("records each SCIM write with its outcome in scimkit_audit of its SQLite database", { timeout: 60_000 }, async () => {
    const file = join(scratch, "audit.db");
    const host = startHost({ SCIMKIT_ORGS: `acme:${TOKEN}`, DATABASE_URL: `sqlite:${file}` });
    const [, baseUrl] = await host.waitFor(/^SCIM base URL for acme: (\S+)$/);
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await send("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "ada@example.com",
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ value: "ada@example.com", type: "work" }],
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await send("DELETE", "/Users/no-such-user")).status).toBe(404);
    expect((await send("DELETE", `/Users/${id}`)).status).toBe(204);

    const database = new Database(file, { readonly: true });
    try {
      const rows = database
        .prepare("select org_id, token_id, operation, resource_type, resource_id, outcome, status, via from scimkit_audit order by id")
        .all();
      expect(rows).toEqual([
        {
          org_id: "acme",
          token_id: "static-1",
          operation: "create",
          resource_type: "User",
          resource_id: id,
          outcome: "success",
          status: 201,
          via: "request",
        },
        {
          org_id: "acme",
          token_id: "static-1",
          operation: "delete",
          resource_type: "User",
          resource_id: "no-such-user",
          outcome: "failure",
          status: 404,
          via: "request",
        },
        {
          org_id: "acme",
          token_id: "static-1",
          operation: "delete",
          resource_type: "User",
          resource_id: id,
          outcome: "success",
          status: 204,
          via: "request",
        },
      ]);
    } finally {
      database.close();
    }
  });
});
