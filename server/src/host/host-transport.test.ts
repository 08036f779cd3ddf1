/**
 * The host's transport as an identity provider and an outsider meet it, on a real host process
 * (issue 27): a 6 MB body is a 413 the client reads, every time; no `Host` header is reflected in
 * a URL without `SCIMKIT_PUBLIC_URL` (the host's own `http://localhost:{port}` is used); every
 * answer, whichever surface wrote it, carries `X-Content-Type-Options: nosniff`.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killHosts, startHost } from "./host-process.fixture.js";

const TOKEN = "token-transport-0123456789abcdef0123456789abcdef";
const OPERATOR_KEY = "operator-key-for-transport-0123456789abcdef";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";

let port: number;
let base: string;

beforeAll(async () => {
  const host = startHost({ DATABASE_URL: "memory:", SCIMKIT_ORGS: `acme:${TOKEN}`, SCIMKIT_OPERATOR_KEY: OPERATOR_KEY });
  port = Number((await host.waitFor(/listening on port (\d+)/))[1]);
  base = `http://127.0.0.1:${port}/scim/Organizations/acme/v2`;
}, 60_000);
afterAll(killHosts);

/** A request with a `Host` header of the caller's choosing (fetch sends its own). */
function withHost(
  method: string,
  path: string,
  host: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: "127.0.0.1", port, method, path, headers: { ...headers, Host: host } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    call.on("error", reject);
    call.end(body);
  });
}

function user(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: "Ann", familyName: "Lee" },
    emails: [{ value: userName, type: "work" }],
    ...extra,
  };
}

describe("the host's transport", () => {
  it("answers a 6 MB POST with the SCIM 413 20 times out of 20 — never a reset upload", { timeout: 180_000 }, async () => {
    const body = JSON.stringify(user("large@example.com", { displayName: "x".repeat(6_000_000) }));
    const outcomes: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      try {
        const response = await fetch(`${base}/Users`, {
          method: "POST",
          headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" },
          body,
        });
        const answer = (await response.json()) as { status?: string };
        outcomes.push(`${response.status} ${String(answer.status)}`);
      } catch (error) {
        outcomes.push(`network error ${(error as { cause?: { code?: string } }).cause?.code ?? String(error)}`);
      }
    }
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => "413 413"));
  });

  it("builds Location, meta.location and the analytics links from its own address, never the Host header", async () => {
    const origin = `http://localhost:${port}`;
    const created = await withHost(
      "POST",
      "/scim/Organizations/acme/v2/Users",
      "attacker.example",
      { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" },
      JSON.stringify(user("ann@example.com")),
    );
    expect(created.status, created.text).toBe(201);
    const { id, meta } = JSON.parse(created.text) as { id: string; meta: { location: string } };
    expect(meta.location).toBe(`${origin}/scim/Organizations/acme/v2/Users/${id}`);
    expect(created.headers["location"]).toBe(meta.location);

    const organization = await withHost(
      "POST",
      "/analytics/v1/organizations",
      "attacker.example",
      { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
      JSON.stringify({ id: "globex", name: "Globex" }),
    );
    expect(organization.status, organization.text).toBe(201);
    expect(organization.text).not.toContain("attacker.example");
    expect(JSON.parse(organization.text)).toMatchObject({ scim: { baseUrl: `${origin}/scim/Organizations/globex/v2` } });
  });

  it("sends X-Content-Type-Options: nosniff on every answer: SCIM, its errors, analytics, events, health, and paths no one serves", async () => {
    const origin = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const answers = await Promise.all(
      [
        fetch(`${base}/Users`, { headers: auth }),
        fetch(`${base}/Users/nobody`, { headers: auth }),
        fetch(`${base}/Users`),
        fetch(`${origin}/scim/Organizations/%zz/v2/Users`),
        fetch(`${origin}/analytics/v1/organizations`, { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } }),
        fetch(`${origin}/analytics/v1/organizations`),
        fetch(`${origin}/scim/Organizations/acme/events/jwks.json`),
        fetch(`${origin}/healthz`),
        fetch(`${origin}/nothing-here`),
      ].map(async (pending) => {
        const response = await pending;
        await response.arrayBuffer();
        return `${response.url.replace(origin, "")} ${response.status} ${response.headers.get("x-content-type-options")}`;
      }),
    );
    for (const answer of answers) expect(answer).toMatch(/ nosniff$/);
    // Each surface answered, not one catch-all.
    expect(answers.map((answer) => answer.split(" ")[1])).toEqual(["200", "404", "401", "400", "200", "401", "200", "200", "404"]);
  });
});
