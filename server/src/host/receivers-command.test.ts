/**
 * `scimkit receivers` as processes (issue 20) on a SQLite file: add, list and remove an
 * organization's RFC 9967 receivers; the `Authorization` value comes from an environment variable
 * and is never printed nor audited; every bad option is a usage error (exit 2) naming it; what is
 * not there is exit 1; and the host's delivery built by `hostEventDelivery` on the same database
 * sees what the command registered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlAuditTrail, sqlStore } from "scimkit/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostEventDelivery } from "./host-event-delivery.js";
import { scimkit, scimkitJson as json } from "./scimkit-cli.fixture.js";

const SECRET = "Bearer siem-secret-51d0e";
const CREATE_FULL = "urn:ietf:params:scim:event:prov:create:full";
const DELETE = "urn:ietf:params:scim:event:prov:delete";

interface Receiver {
  readonly id: string;
  readonly [field: string]: unknown;
}

describe("scimkit receivers on SQLite", () => {
  let directory: string;
  let database: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-receivers-"));
    database = join(directory, "scim.db");
    env = { DATABASE_URL: `sqlite:${database}`, SCIMKIT_PUBLIC_URL: "https://scim.example.com" };
    expect((await scimkit(["orgs", "create", "Acme", "--id", "acme"], env)).status).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("adds, lists and removes receivers, reading the Authorization value from the environment and never printing or auditing it", {
    timeout: 180_000,
  }, async () => {
    const withSecret = { ...env, SIEM_AUTH: SECRET };
    const added = await scimkit(
      [
        "receivers",
        "add",
        "--org",
        "acme",
        "--url",
        "https://siem.example.com/events",
        "--form",
        "full",
        "--events",
        `${CREATE_FULL},${DELETE}`,
        "--audience",
        "https://siem.example.com/",
        "--authorization-env",
        "SIEM_AUTH",
        "--label",
        "SIEM",
        "--json",
      ],
      withSecret,
    );
    expect(added.status, added.stderr).toBe(0);
    const push = (JSON.parse(added.stdout) as { receiver: Receiver }).receiver;
    expect(push).toMatchObject({
      organizationId: "acme",
      url: "https://siem.example.com/events",
      delivery: "push",
      form: "full",
      events: [CREATE_FULL, DELETE],
      audience: "https://siem.example.com/",
      hasAuthorization: true,
      label: "SIEM",
      delivered: 0,
    });
    expect(push).not.toHaveProperty("pollUrl");

    const poll = (
      await json<{ receiver: Receiver }>(
        [
          "receivers",
          "add",
          "--org",
          "acme",
          "--url",
          "https://behind.example.com/",
          "--poll",
          "--authorization-env",
          "SIEM_AUTH",
          "--from-beginning",
        ],
        withSecret,
      )
    ).receiver;
    expect(poll["delivery"]).toBe("poll");
    expect(poll["position"]).toBe(0);
    expect(poll["pollUrl"]).toBe(`https://scim.example.com/scim/Organizations/acme/events/poll/${poll.id}`);

    const listed = await json<{ data: Receiver[] }>(["receivers", "list", "--org", "acme"], env);
    expect(listed.data.map((receiver) => receiver.id)).toEqual([push.id, poll.id]);
    const plain = await scimkit(["receivers", "list", "--org", "acme"], env);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain(`${push.id}  https://siem.example.com/events  push  full`);
    expect(plain.stdout).toContain("delivered=0");

    // The host's delivery on the same database sees them, with the host's addresses.
    const store = await sqlStore({ sqlite: database, threads: false });
    try {
      const events = hostEventDelivery(store, { publicUrl: "https://scim.example.com" });
      const seen = await events.delivery.receivers("acme");
      expect(seen.map((receiver) => receiver.id)).toEqual([push.id, poll.id]);
      expect(seen[0]?.authorization).toBe(SECRET);
      expect(events.issuer("acme")).toBe("https://scim.example.com/scim/Organizations/acme/v2");
      expect(events.jwksUrl("acme")).toBe("https://scim.example.com/scim/Organizations/acme/events/jwks.json");
      expect((await events.keys.jwks("acme")).keys).toHaveLength(1);
    } finally {
      await store.close();
    }

    expect((await scimkit(["receivers", "remove", "--org", "acme", push.id], env)).status).toBe(0);
    const missing = await scimkit(["receivers", "remove", "--org", "acme", push.id], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/has no event receiver/);
    expect((await json<{ data: Receiver[] }>(["receivers", "list", "--org", "acme"], env)).data.map((receiver) => receiver.id)).toEqual([
      poll.id,
    ]);

    const trailStore = await sqlStore({ sqlite: database, threads: false });
    try {
      const entries = [...(await sqlAuditTrail(trailStore.db).list("acme"))].reverse();
      expect(
        entries
          .filter((entry) => entry.resourceType === "EventReceiver")
          .map((entry) => [entry.operation, entry.resourceId, entry.outcome, entry.status, entry.via]),
      ).toEqual([
        ["cli.addOrganizationEventReceiver", push.id, "success", 201, "cli"],
        ["cli.addOrganizationEventReceiver", poll.id, "success", 201, "cli"],
        ["cli.removeOrganizationEventReceiver", push.id, "success", 204, "cli"],
        ["cli.removeOrganizationEventReceiver", push.id, "failure", 404, "cli"],
      ]);
      expect(JSON.stringify(entries)).not.toContain("siem-secret");
    } finally {
      await trailStore.close();
    }
    for (const run of [added, plain]) expect(run.stdout + run.stderr).not.toContain("siem-secret");
  });

  it("refuses a wrong command line with exit 2 naming the option, and what is not there with exit 1", { timeout: 180_000 }, async () => {
    const withSecret = { ...env, SIEM_AUTH: SECRET };
    const add = ["receivers", "add", "--org", "acme"];
    const cases: readonly [readonly string[], RegExp][] = [
      [["receivers"], /no subcommand/],
      [["receivers", "drop", "--org", "acme"], /unknown subcommand/],
      [["receivers", "list"], /needs --org/],
      [[...add], /needs --url/],
      [[...add, "--url", "ftp://files.example.com/"], /--url: must be https:/],
      [[...add, "--url", "https://user:pw@siem.example.com/"], /--url: must not carry a user name or password/],
      [[...add, "--url", "not a url"], /--url: must be an absolute URL/],
      [[...add, "--url", "https://siem.example.com/", "--poll"], /--authorization-env: is required for a poll receiver/],
      [[...add, "--url", "https://siem.example.com/", "--authorization-env", "NOT_SET"], /NOT_SET is not set/],
      // The secret itself is refused on the command line, where `ps` would show it.
      [[...add, "--url", "https://siem.example.com/", "--authorization", SECRET], /Unknown option '--authorization'/],
      [[...add, "--url", "https://siem.example.com/", "--events", "urn:example:nothing"], /--events: "urn:example:nothing" is not/],
      [[...add, "--url", "https://siem.example.com/", "--events", CREATE_FULL], /--events: is a full-form URI/],
      [[...add, "--url", "https://siem.example.com/", "--form", "summary"], /--form "summary": expected full or notice/],
      [["receivers", "list", "--org", "acme", "--url", "https://x.example/"], /takes no --url/],
      [["receivers", "remove", "--org", "acme"], /takes <receiverId>/],
      // Issue 27: the address rules, after the WHATWG URL parser (2130706433 is 127.0.0.1) and DNS.
      [
        [...add, "--url", "http://2130706433:9/events"],
        /--url: The receiver URL's host 127\.0\.0\.1 is a loopback address; ask the operator to allow it with SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS/,
      ],
      [[...add, "--url", "http://169.254.169.254/latest/"], /--url: .* is a cloud metadata service address/],
    ];
    for (const [args, message] of cases) {
      const run = await scimkit(args, withSecret);
      expect(run.status, `${args.join(" ")}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Usage: scimkit receivers/);
    }
    // The operator allows it: registered.
    const allowed = await json<{ receiver: Receiver }>(["receivers", "add", "--org", "acme", "--url", "http://127.0.0.1:9/events"], {
      ...env,
      SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1",
    });
    expect(allowed.receiver["url"]).toBe("http://127.0.0.1:9/events");
    expect((await scimkit(["receivers", "remove", "--org", "acme", allowed.receiver.id], env)).status).toBe(0);
    const unknown = await scimkit(["receivers", "add", "--org", "nowhere", "--url", "https://siem.example.com/"], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/there is no organization "nowhere"/);
    expect((await scimkit(["receivers", "list", "--org", "nowhere"], env)).status).toBe(1);

    const help = await scimkit(["--help"], {});
    expect(help.stdout).toMatch(/^ {2}receivers /m);
    const own = await scimkit(["receivers", "--help"], {});
    expect(own.status).toBe(0);
    expect(own.stdout).toMatch(/^Usage: scimkit receivers/);
  });

  it("rotates the organization's signing key: the new key signs, the old public key stays in the JWKS, and the trail says so", {
    timeout: 180_000,
  }, async () => {
    const store = await sqlStore({ sqlite: database, threads: false });
    try {
      const before = hostEventDelivery(store, { publicUrl: "https://scim.example.com" });
      const old = (await before.keys.signingKey("acme")).kid;
      const rotated = await json<{ signingKey: { organization: string; kid: string } }>(["receivers", "rotate-key", "--org", "acme"], env);
      expect(rotated.signingKey.organization).toBe("acme");
      expect(rotated.signingKey.kid).not.toBe(old);
      // A host that starts now (a fresh process reads the key from the database) signs with the new key.
      const after = hostEventDelivery(store, { publicUrl: "https://scim.example.com" });
      expect((await after.keys.signingKey("acme")).kid).toBe(rotated.signingKey.kid);
      expect((await after.keys.jwks("acme")).keys.map((key) => key.kid)).toEqual([rotated.signingKey.kid, old]);
      const trail = await sqlAuditTrail(store.db).list("acme");
      expect(trail.find((entry) => entry.resourceType === "EventSigningKey")).toMatchObject({
        operation: "cli.rotateOrganizationEventSigningKey",
        resourceId: rotated.signingKey.kid,
      });
    } finally {
      await store.close();
    }
    const unknown = await scimkit(["receivers", "rotate-key", "--org", "nobody"], env);
    expect(unknown.status).toBe(1);
  });
});
