/**
 * The hostile corpus (`test/fixtures/hostile`) replayed over HTTP against the store of this vitest
 * project (memory, or SQLite in `express5-sqlite`) and against PostgreSQL when one is configured,
 * each project its families of the corpus (`familiesOfThisProject`).
 *
 * Two organizations are seeded alike. Requests that must not write go to `acme`; requests that may
 * legitimately write go to `globex`. Every answer must be one the corpus lists — a SCIM error of
 * RFC 7644 §3.12 with the right `scimType`, or a success — and never a 500; afterwards every seeded
 * resource of `acme`, and its lists of users and groups, must read byte for byte as before, and
 * neither `Object.prototype` nor `Array.prototype` may have gained a property.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { HOSTILE_BODY_LIMIT, type HostileFamily, type HostileRequest, hostileFamilies } from "../fixtures/hostile/hostile-corpus.js";
import { ENTERPRISE_SCHEMA, ERROR_SCHEMA, GROUP_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";

/** Must read byte for byte as seeded once the corpus has run. */
const SEALED = "acme";
/** Takes the requests that may write. */
const SCRATCH = "globex";
type Organization = typeof SEALED | typeof SCRATCH;

/**
 * The families this project replays (vitest.config.ts). `express5` replays them all, on memory and
 * on PostgreSQL; the projects that run this file again replay what they change. On SQLite: what
 * reaches the store — bodies refused unread or unparsed are the body reader's, the same whatever
 * the store. On Express 4: what its router, parameter decoding and query parser (qs) see, and the
 * body reader's refusals, which reach Express 4's error handling.
 */
function familiesOfThisProject(): readonly HostileFamily[] {
  const all = Object.keys(hostileFamilies) as HostileFamily[];
  if (process.env["SCIMKIT_EXPRESS_MAJOR"] === "4") return ["malformedBodies", "wrongMediaTypes", "queries", "hostileIds"];
  if (process.env["SCIMKIT_HTTP_STORE"] === "sqlite")
    return all.filter((family) => !["malformedBodies", "wrongMediaTypes", "oversizedBodies"].includes(family));
  return all;
}
const families = familiesOfThisProject();
const replayed: readonly HostileRequest[] = families.flatMap((family) => hostileFamilies[family]);

/** A fixed base URL, so that `meta.location` does not vary with supertest's ephemeral ports. */
const BASE_URL = "https://scim.example.com/scim/Organizations/{orgId}/v2";

interface Seeded {
  readonly users: readonly string[];
  readonly group: string;
}

/** What a hostile request needs from the store under test, and how to let it go. */
interface StoreUnderTest {
  readonly store?: ResourceStore;
  readonly close: () => Promise<void>;
}

type Json = Record<string, unknown>;

async function seed(t: TestApp, org: Organization): Promise<Seeded> {
  const token = t.token[org];
  const users: string[] = [];
  const bodies = [
    userBody("ann", {
      displayName: "Ann",
      nickName: "Annie",
      title: "Guide",
      phoneNumbers: [{ value: "+1 555 0100", type: "work" }],
      [ENTERPRISE_SCHEMA]: { employeeNumber: "1001", department: "Tours", manager: { value: "m-1" } },
    }),
    userBody("bob", { externalId: "ext-bob" }),
    userBody("cy", {
      active: false,
      emails: [
        { value: "cy@example.com", type: "work" },
        { value: "cy@home.example", type: "home" },
      ],
    }),
  ];
  for (const body of bodies) {
    const response = await t.post(`${t.base(org)}/Users`, body, token);
    expect(response.status, response.text).toBe(201);
    users.push(String((response.body as Json)["id"]));
  }
  const group = await t.post(
    `${t.base(org)}/Groups`,
    { schemas: [GROUP_SCHEMA], displayName: "Everyone", members: users.slice(0, 2).map((value) => ({ value })) },
    token,
  );
  expect(group.status, group.text).toBe(201);
  return { users, group: String((group.body as Json)["id"]) };
}

/** Every read of the sealed organization's data, as status, ETag and exact body text. */
async function readEverything(t: TestApp, seeded: Seeded): Promise<string[]> {
  const paths = [
    ...seeded.users.map((id) => `/Users/${id}`),
    `/Groups/${seeded.group}`,
    "/Users?count=1000",
    "/Groups?count=1000",
    "/Groups?count=1000&attributes=members",
  ];
  const reads: string[] = [];
  for (const path of paths) {
    const response = await t.get(`${t.base(SEALED)}${path}`, t.token[SEALED]);
    reads.push(`${path} → ${response.status} ${String(response.headers["etag"] ?? "")}\n${response.text}`);
  }
  return reads;
}

/** The right answer of one response (`"400 invalidFilter"`), after checking its SCIM shape. */
function answerOf(response: request.Response): string {
  if (response.status < 400) return String(response.status);
  const scimType = (response.body as Json)["scimType"];
  expectScimError(response, response.status, typeof scimType === "string" ? scimType : undefined);
  return `${response.status}${typeof scimType === "string" ? ` ${scimType}` : ""}`;
}

function checkBulkOperations(entry: HostileRequest, body: Json): void {
  const operations = body["Operations"];
  expect(Array.isArray(operations)).toBe(true);
  for (const operation of operations as Json[]) {
    const response = operation["response"] as Json | undefined;
    const scimType = response?.["scimType"];
    const answer = `${String(operation["status"])}${typeof scimType === "string" ? ` ${scimType}` : ""}`;
    expect(entry.operationAnswers, JSON.stringify(operation).slice(0, 400)).toContain(answer);
    if (response) {
      expect(response["schemas"]).toEqual([ERROR_SCHEMA]);
      expect(response["status"]).toBe(operation["status"]);
      expect(typeof response["detail"]).toBe("string");
    }
  }
}

async function replay(t: TestApp, seeded: Readonly<Record<Organization, Seeded>>, entry: HostileRequest): Promise<void> {
  const org: Organization = entry.mayWrite ? SCRATCH : SEALED;
  const ids = seeded[org];
  const fill = (text: string): string =>
    text
      .replaceAll("{user}", ids.users[0] ?? "")
      .replaceAll("{user2}", ids.users[1] ?? "")
      .replaceAll("{group}", ids.group);
  // Only this request's unexpected errors: one failure must not fail every request after it.
  const errorsBefore = t.errors.length;
  const url = entry.path.startsWith("/scim/") ? entry.path : `${t.base(org)}${fill(entry.path)}`;
  const agent = request(t.app);
  const started =
    entry.method === "GET"
      ? agent.get(url)
      : entry.method === "POST"
        ? agent.post(url)
        : entry.method === "PUT"
          ? agent.put(url)
          : agent.patch(url);
  let call = started.set("Authorization", `Bearer ${t.token[org]}`);
  if (entry.body !== undefined) {
    call = call.set("Content-Type", entry.contentType ?? "application/scim+json");
    // Bytes go out as they are: superagent would otherwise serialize a Buffer under a JSON type.
    call =
      typeof entry.body === "string"
        ? call.send(fill(entry.body))
        : call.serialize((bytes: Buffer) => bytes as unknown as string).send(entry.body);
  }
  const response = await call;
  const context = `${entry.name} → ${response.status} ${response.text.slice(0, 400)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(entry.answers, context).toContain(answerOf(response));
  if (response.status < 400 && response.status !== 204) {
    expect(Array.isArray((response.body as Json)["schemas"]), context).toBe(true);
    // A success never carries what a prototype key smuggled in (the corpus marks it so).
    expect(response.text, context).not.toMatch(/polluted|intruder/);
  }
  if (entry.operationAnswers) checkBulkOperations(entry, response.body as Json);
  expect(t.errors.slice(errorsBefore), context).toEqual([]);
}

/** Registers the replay, in the current `describe`, against the store `open` gives (or the project's). */
function describeReplay(open: () => Promise<StoreUnderTest>): void {
  let t: TestApp;
  let underTest: StoreUnderTest;
  let seeded: Record<Organization, Seeded>;
  let before: string[];
  const prototypeKeys = { object: Object.getOwnPropertyNames(Object.prototype), array: Object.getOwnPropertyNames(Array.prototype) };

  beforeAll(async () => {
    underTest = await open();
    t = await createTestApp({ ...(underTest.store ? { store: underTest.store } : {}), bodyLimit: HOSTILE_BODY_LIMIT, baseUrl: BASE_URL });
    seeded = { [SEALED]: await seed(t, SEALED), [SCRATCH]: await seed(t, SCRATCH) };
    before = await readEverything(t, seeded[SEALED]);
  });
  afterAll(async () => underTest.close());

  for (const entry of replayed) {
    it(entry.name, async () => replay(t, seeded, entry), 30_000);
  }

  it("leaves the sealed organization byte for byte as seeded, and every prototype as it was", async () => {
    expect(await readEverything(t, seeded[SEALED])).toEqual(before);
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeKeys.object);
    expect(Object.getOwnPropertyNames(Array.prototype)).toEqual(prototypeKeys.array);
    expect(({} as Json)["polluted"]).toBeUndefined();
    expect(t.errors).toEqual([]);
  });
}

describe(`the hostile corpus (${replayed.length} requests: ${families.join(", ")}) on the ${process.env["SCIMKIT_HTTP_STORE"] ?? "memory"} store`, () => {
  describeReplay(async () => ({ close: async () => undefined }));
});

describePostgres("the hostile corpus on PostgreSQL", (url) => {
  describeReplay(async () => {
    const schema = await createTestSchema(url);
    const store = await sqlStore({ postgres: schema.pool() });
    return {
      store,
      close: async () => {
        await store.close();
        await schema.drop();
      },
    };
  });
});
