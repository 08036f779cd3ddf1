/**
 * The analytics hostile corpus (`analytics-hostile-corpus.ts`) replayed over HTTP against the
 * populated world on the store of this vitest project (memory, or SQLite in `express5-sqlite`).
 *
 * Every answer must be one the corpus lists — a documented `application/problem+json` of the right
 * type, or a success — never a 500, and nothing may reach `onError`. Afterwards the sealed fixtures
 * (organizations A and B, the three admin users, the campaigns, learners and summaries) must read
 * byte for byte as before, and neither `Object.prototype` nor `Array.prototype` may have gained a
 * property.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { checkResponse } from "../../src/analytics/definitions/schema-validators.js";
import {
  BASE,
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  operationFor,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { HOSTILE_BODY_LIMIT, analyticsHostileCorpus, type HostileAnalyticsRequest } from "./analytics-hostile-corpus.js";
import { adminWithKey, createOrganization, createWorld, type World } from "./analytics-world.js";

/** The ids the corpus's placeholders stand for. */
type Placeholders = Readonly<Record<string, string>>;

function fill(path: string, placeholders: Placeholders): string {
  return path.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => placeholders[name] ?? whole);
}

/** Every read of the sealed fixtures, as status and exact body text; lists keep only the sealed items. */
async function readEverything(w: World): Promise<string[]> {
  const sealedOrganizations = new Set([w.orgA.id, w.orgB.id]);
  const sealedAdmins = new Set(Object.values(w.adminUsers));
  const reads: string[] = [];
  const read = async (path: string, keep?: (item: Json) => boolean): Promise<void> => {
    const response = await w.t.get(path);
    const body = keep === undefined ? response.text : JSON.stringify(((response.body as { data: Json[] }).data ?? []).filter(keep));
    reads.push(`${path} → ${response.status}\n${body}`);
  };
  for (const id of sealedOrganizations) await read(`/organizations/${id}`);
  for (const id of sealedAdmins) await read(`/admin-users/${id}`);
  await read("/organizations?limit=1000", (item) => sealedOrganizations.has(String(item["id"])));
  await read("/admin-users?limit=1000", (item) => sealedAdmins.has(String(item["id"])));
  for (const campaign of [w.campaignA, w.campaignB]) {
    await read(`/campaigns/${campaign.id}/summary`);
    await read(`/campaigns/${campaign.id}/users?limit=1000`);
    await read(`/campaigns/${campaign.id}/feedback-comments?limit=1000`);
  }
  for (const simulation of [w.simulationA, w.simulationB]) await read(`/attack-simulations/${simulation.id}/summary`);
  await read("/campaigns?limit=1000", (item) => sealedOrganizations.has(String(item["organizationId"])));
  await read("/users?limit=1000", (item) => sealedOrganizations.has(String(item["organizationId"])));
  return reads;
}

/** The answer of one response (`"400 invalid-request"`, or `"201"`), after holding it to the OpenAPI document. */
function answerOf(entry: HostileAnalyticsRequest, path: string, response: request.Response): string {
  const operation = operationFor(entry.method, path.split("?")[0] ?? "");
  expect(operation, `${entry.method} ${path} is no operation`).toBeDefined();
  const mediaType = (String(response.headers["content-type"] ?? "").split(";")[0] ?? "").trim();
  if (operation !== undefined) {
    const checked = checkResponse(operation, response.status, mediaType, response.status === 204 ? undefined : (response.body as unknown));
    expect(
      checked.documented && checked.errors.length === 0,
      `${response.status} is not as ${operation.operationId} documents it: ${JSON.stringify(checked.errors).slice(0, 400)}`,
    ).toBe(true);
  }
  if (response.status < 400) return String(response.status);
  const type = String((response.body as Json)["type"] ?? "").replace("https://scimkit.dev/problems/", "");
  expectProblem(response, response.status, type);
  return `${response.status} ${type}`;
}

async function replay(w: World, placeholders: Placeholders, entry: HostileAnalyticsRequest): Promise<void> {
  const path = fill(entry.path, placeholders);
  const url = `${BASE}${path}`;
  const agent = request(w.t.app);
  let call = entry.method === "GET" ? agent.get(url) : entry.method === "POST" ? agent.post(url) : agent.patch(url);
  if (entry.key !== "none") call = call.set("Authorization", `Bearer ${w.t.operatorKey}`);
  if (entry.body !== undefined) {
    call = call.set("Content-Type", entry.contentType ?? "application/json");
    // Bytes go out as they are: superagent would otherwise serialize a Buffer under a JSON type.
    call =
      typeof entry.body === "string"
        ? call.send(fill(entry.body, placeholders))
        : call.serialize((bytes: Buffer) => bytes as unknown as string).send(entry.body);
  }
  const errorsBefore = w.t.errors.length;
  const response = await call;
  expect(response.status, `${entry.name}: ${response.text.slice(0, 400)}`).not.toBe(500);
  expect(entry.answers, `${entry.name}: ${response.text.slice(0, 400)}`).toContain(answerOf(entry, path, response));
  expect(w.t.errors.slice(errorsBefore), entry.name).toEqual([]);
}

const prototypeKeys = (): string[] =>
  [...Object.getOwnPropertyNames(Object.prototype), ...Object.getOwnPropertyNames(Array.prototype)].sort();

/** The whole corpus against a world on the stores `options` name. */
async function replayCorpus(options: TestAppOptions): Promise<void> {
  const w = await createWorld({ ...options, router: { bodyLimit: HOSTILE_BODY_LIMIT } });
  const scratchOrg = await createOrganization(w.t, "Scratch");
  const scratchAdmin = await adminWithKey(w.t, "scratch@example.com", "viewer", [scratchOrg.id]);
  const adminUsersCursor = (((await w.t.get("/admin-users?limit=1")).body as Json)["nextCursor"] as string | null) ?? "";
  const organizationsCursor = (((await w.t.get("/organizations?limit=1")).body as Json)["nextCursor"] as string | null) ?? "";
  expect(adminUsersCursor).not.toBe("");
  expect(organizationsCursor).not.toBe("");
  const placeholders: Placeholders = {
    orgA: w.orgA.id,
    scratchOrg: scratchOrg.id,
    adminA: w.adminUsers.adminA,
    scratchAdmin: scratchAdmin.id,
    campaignA: w.campaignA.id,
    simulationA: w.simulationA.id,
    adminUsersCursor,
    organizationsCursor,
  };
  const prototypesBefore = prototypeKeys();
  const before = await readEverything(w);

  const failures: string[] = [];
  for (const entry of analyticsHostileCorpus) {
    try {
      await replay(w, placeholders, entry);
    } catch (error) {
      failures.push(error instanceof Error ? error.message.slice(0, 600) : String(error));
    }
  }
  expect(failures).toEqual([]);

  expect(w.t.errors).toEqual([]);
  expect(prototypeKeys()).toEqual(prototypesBefore);
  expect(({} as Json)["polluted"]).toBeUndefined();
  expect(([] as unknown as Json)["polluted"]).toBeUndefined();
  expect(await readEverything(w)).toEqual(before);
}

describe("hostile input to the analytics routes", { timeout: 180_000 }, () => {
  it("answers every hostile request with its documented problem, never a 500, and changes nothing sealed", async () => {
    await replayCorpus({});
  });
});

// PostgreSQL refuses what SQLite and memory take (a NUL character in text), so the corpus runs there too.
describePostgres("hostile input to the analytics routes on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  it("answers every hostile request with its documented problem, never a 500, and changes nothing sealed", {
    timeout: 300_000,
  }, async () => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    await replayCorpus({ postgres: { pool: schema.pool() } });
  });
});

describe("query parameters named after the prototype", POPULATED, () => {
  // Regression: the query was gathered on `{}`, where `values["__proto__"] = "x"` hits the
  // prototype setter and is dropped, so the parameter slipped past "unknown parameter" unseen.
  it("refuses __proto__ as an unknown parameter, like any other", async () => {
    const t = await createAnalyticsTestApp();
    expectInvalidFields(await t.get("/organizations?__proto__=x"), ["__proto__"]);
    expectInvalidFields(await t.get("/organizations?constructor=x&prototype=y"), ["constructor", "prototype"]);
    expect((await t.get("/organizations?status=active")).status).toBe(200);
  });
});
