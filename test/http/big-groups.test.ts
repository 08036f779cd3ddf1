/**
 * Issue 12 point 3 (architecture §4b): a group of 100,000 members is rendered and written in slices of
 * the event loop. Its response is, byte for byte, `JSON.stringify` of the group — whole, projected,
 * in a list — and a cheap GET of another organization, sent once the big read has reached the
 * store, is answered before the big response's headers arrive. Assertions are about order, never
 * about time. The groups are seeded through the store's API: 100,000 creates over HTTP would be
 * the test's whole cost.
 */
import { once } from "node:events";
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { GROUP_SCHEMA, LIST_SCHEMA, createTestApp, defaultStore, type TestApp } from "./harness.js";

const BIG = 100_000;
/** Over the 2,000 elements from which a body is written in pieces, on whichever store the project runs. */
const MEDIUM = 2_500;

type Json = Record<string, unknown>;

/** Stores `count` users and a group holding all of them, in that order; returns the group's stored view. */
async function seedGroup(store: ResourceStore, groupId: string, count: number): Promise<{ readonly ids: string[]; readonly meta: Json }> {
  const now = new Date().toISOString();
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = `${groupId}-member-${String(index).padStart(6, "0")}`;
    ids.push(id);
    await store.create({
      orgId: "acme",
      resourceType: "User",
      id,
      now,
      attributes: { userName: id },
      uniqueKeys: [],
      unknownMembers: "reject",
    });
  }
  await store.create({
    orgId: "acme",
    resourceType: "Group",
    id: groupId,
    now,
    attributes: { displayName: `group ${groupId}` },
    uniqueKeys: [],
    members: ids,
    unknownMembers: "reject",
  });
  const stored = await store.get({ orgId: "acme", resourceType: "Group", id: groupId, members: false });
  if (!stored) throw new Error("the seeded group is missing");
  return {
    ids,
    meta: { resourceType: "Group", created: stored.created, lastModified: stored.lastModified, version: `W/"${stored.version}"` },
  };
}

/** The harness's app on a real socket, requests over kept-alive connections. */
interface Served {
  readonly t: TestApp;
  /** `http://127.0.0.1:<port>/scim/Organizations/acme/v2`, the base of every URL the service renders. */
  readonly baseUrl: string;
  /** GETs `path` of `org`; `onHeaders` is called when the response's headers arrive. */
  get(
    path: string,
    org?: "acme" | "globex",
    onHeaders?: () => void,
  ): Promise<{ readonly status: number; readonly headers: Json; readonly body: Buffer }>;
  close(): Promise<void>;
}

async function serve(t: TestApp): Promise<Served> {
  // Idle connections stay open as long as a test may take between requests: Node's 5 s default
  // closed a pooled one while a loaded machine was still seeding, and the next request on it got
  // "socket hang up" (a loaded CI run, 2026-12-02).
  const server: Server = createServer({ keepAliveTimeout: 120_000 }, t.app).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const get: Served["get"] = (path, org = "acme", onHeaders) =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: "127.0.0.1", port, agent, path: `${t.base(org)}${path}`, headers: { authorization: `Bearer ${t.token[org]}` } },
        (response) => {
          onHeaders?.();
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers as Json, body: Buffer.concat(chunks) }),
          );
          response.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end();
    });
  // Two connections open and idle, so a request sent mid-race needs no new one.
  await Promise.all([get("/Users?count=1", "globex"), get("/Users?count=1", "globex")]);
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}${t.base()}`,
    get,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * The group as RFC 7643 §4.2 renders it: members in the order they were added, each with its
 * `$ref`. A projection that picks attributes writes sub-attributes in the schema's order (`value`,
 * `$ref`, `type`: `projected`); the whole resource keeps the rendered order (`value`, `type`, `$ref`).
 */
function expectedGroup(served: Served, groupId: string, seeded: { readonly ids: string[]; readonly meta: Json }, projected = false): Json {
  const ref = (id: string): string => `${served.baseUrl}/Users/${id}`;
  return {
    schemas: [GROUP_SCHEMA],
    id: groupId,
    displayName: `group ${groupId}`,
    members: seeded.ids.map((id) => (projected ? { value: id, $ref: ref(id), type: "User" } : { value: id, type: "User", $ref: ref(id) })),
    meta: { ...seeded.meta, location: `${served.baseUrl}/Groups/${groupId}` },
  };
}

/** Byte for byte, without printing megabytes when it fails. */
function expectSameBytes(body: Buffer, expected: unknown): void {
  const text = Buffer.from(JSON.stringify(expected), "utf8");
  if (body.equals(text)) return;
  const at = Math.max(
    0,
    body.findIndex((byte, index) => byte !== text[index]),
  );
  // Only the neighbourhood of the first difference, not megabytes.
  expect(body.subarray(at - 80, at + 80).toString()).toBe(text.subarray(at - 80, at + 80).toString());
  expect(body.length).toBe(text.length);
}

function expectStreamedHeaders(headers: Json, version: unknown): void {
  expect(headers["content-type"]).toBe("application/scim+json; charset=utf-8");
  expect(headers["etag"]).toBe(version);
  // Written in pieces: no Content-Length, so chunked.
  expect(headers["content-length"]).toBeUndefined();
  expect(headers["transfer-encoding"]).toBe("chunked");
}

describe("a group of 100,000 members on the memory store", () => {
  let served: Served;
  let seeded: { readonly ids: string[]; readonly meta: Json };
  /** Told when the router reads acme's big group, once `armed`. */
  let armed = false;
  let reached: () => void = () => undefined;

  beforeAll(async () => {
    const base = memoryStore();
    seeded = await seedGroup(base, "big", BIG);
    const store = new Proxy(base, {
      get(target, key, receiver) {
        const member: unknown = Reflect.get(target, key, receiver);
        if (key !== "get" || typeof member !== "function") return member;
        return (request: { readonly orgId: string; readonly resourceType: string }) => {
          if (armed && request.orgId === "acme" && request.resourceType === "Group") reached();
          return (member as (request: unknown) => unknown).call(target, request);
        };
      },
    });
    served = await serve(await createTestApp({ store }));
  }, 120_000);

  afterAll(async () => {
    await served.close();
  });

  it("is returned whole, byte for byte JSON.stringify of the group, with its ETag", async () => {
    const response = await served.get("/Groups/big");
    expect(response.status).toBe(200);
    expectStreamedHeaders(response.headers, seeded.meta["version"]);
    expectSameBytes(response.body, expectedGroup(served, "big", seeded));
  });

  it("with attributes=members.value: only what was asked, and what is always returned", async () => {
    const response = await served.get("/Groups/big?attributes=members.value");
    expect(response.status).toBe(200);
    expectStreamedHeaders(response.headers, seeded.meta["version"]);
    expectSameBytes(response.body, { schemas: [GROUP_SCHEMA], id: "big", members: seeded.ids.map((value) => ({ value })) });
  });

  it("with excludedAttributes=displayName,meta: everything else, members whole", async () => {
    const response = await served.get("/Groups/big?excludedAttributes=displayName,meta");
    expect(response.status).toBe(200);
    const { displayName: _displayName, meta: _meta, ...rest } = expectedGroup(served, "big", seeded, true);
    expectSameBytes(response.body, rest);
  });

  it("in a list page with its members, byte for byte the ListResponse", async () => {
    const response = await served.get("/Groups?attributes=displayName,members");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/scim+json; charset=utf-8");
    const { meta: _meta, ...group } = expectedGroup(served, "big", seeded, true);
    expectSameBytes(response.body, { schemas: [LIST_SCHEMA], totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [group] });
  });

  it("lets a cheap GET of another organization, sent once the big GET has reached the store, be answered first", async () => {
    const order: string[] = [];
    const reading = new Promise<void>((resolve) => {
      reached = resolve;
    });
    armed = true;
    const big = served
      .get("/Groups/big", "acme", () => order.push("big: headers"))
      .then((response) => {
        order.push("big: end");
        return response;
      });
    await reading;
    armed = false;
    const cheap = served.get("/Users?count=1", "globex").then((response) => {
      expect(response.status).toBe(200);
      order.push("cheap GET");
    });
    const [response] = await Promise.all([big, cheap]);
    expect(order).toEqual(["cheap GET", "big: headers", "big: end"]);
    expectSameBytes(response.body, expectedGroup(served, "big", seeded));
  });
});

describe("a group over the threshold on this project's store", () => {
  it("is returned byte for byte, whole and with attributes=members.value", async () => {
    const store = await defaultStore();
    const seeded = await seedGroup(store, "medium", MEDIUM);
    const served = await serve(await createTestApp({ store }));
    try {
      const whole = await served.get("/Groups/medium");
      expect(whole.status).toBe(200);
      expectStreamedHeaders(whole.headers, seeded.meta["version"]);
      expectSameBytes(whole.body, expectedGroup(served, "medium", seeded));
      const projected = await served.get("/Groups/medium?attributes=members.value");
      expectSameBytes(projected.body, { schemas: [GROUP_SCHEMA], id: "medium", members: seeded.ids.map((value) => ({ value })) });
    } finally {
      await served.close();
    }
  }, 60_000);

  it("a small group keeps today's response, with its Content-Length", async () => {
    const store = await defaultStore();
    const seeded = await seedGroup(store, "small", 3);
    const served = await serve(await createTestApp({ store }));
    try {
      const response = await served.get("/Groups/small");
      expect(response.headers["content-length"]).toBe(String(response.body.length));
      expect(response.headers["etag"]).toBe(seeded.meta["version"]);
      expectSameBytes(response.body, expectedGroup(served, "small", seeded));
    } finally {
      await served.close();
    }
  });
});
