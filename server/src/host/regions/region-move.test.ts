/**
 * Issue 30, point 4, with real processes: an organization moves from a `us` host to an `eu`
 * host, each on its own database (two SQLite files; separately, two PostgreSQL databases), while
 * an identity provider writes to it as Entra ID does. Every write is answered 2xx or 503 (then
 * retried, as Entra retries), none is lost, ids and versions (ETags) stay, and the identity
 * provider's token works at the new base URL, which `us` names in its 421. Each host is killed
 * (SIGKILL) at a step of the move, in turn, and restarted: the move resumes and loses nothing.
 * Afterwards `us`'s database holds nothing of the organization's people, and a move the CLI
 * records, then cancels before its switch, leaves nothing in `eu`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Host, killHosts, startHost } from "../host-process.fixture.js";
import { scimkit, scimkitJson } from "../scimkit-cli.fixture.js";
import {
  call,
  describeTwoPostgresDatabases,
  eventually,
  type RegionDatabases,
  regionPair,
  sqliteDatabases,
} from "./region-databases.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const POLL_SECRET = "poll-secret-of-the-acme-receiver-0123456789";
const STAYS_TOKEN = "token-stays-us-0123456789abcdef0123456789a";
const OPERATOR_KEY = "operator-key-region-move-0123456789abcdef";
const REGION_KEY = "region-key-region-move-0123456789abcdef0123";

afterAll(killHosts);

/** A user as Entra ID creates one (its documented request: externalId, userName, active, name, a work e-mail). */
function entraUser(n: number): Record<string, unknown> {
  const userName = `mover-${n}@acme-move.example`;
  return {
    schemas: [USER_SCHEMA, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
    externalId: `entra-${n}`,
    userName,
    active: true,
    displayName: `Mover ${n}`,
    emails: [{ primary: true, type: "work", value: userName }],
    name: { formatted: `Mover ${n}`, familyName: "Mover", givenName: `N${n}` },
  };
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly etag: string | null;
}

/**
 * The identity provider: writes, and on a 503 waits and sends the same write again; on a 421 its
 * admin changes the tenant URL to the one the `detail` names; while a host is down (no answer at
 * all) it tries again. Every answer it got is kept.
 */
function entraWriter(firstBase: string, token: string) {
  let base = firstBase;
  const statuses: number[] = [];
  const unexpected: string[] = [];
  const users = new Map<string, { id: string; version: string; active: boolean }>();
  const grouped = new Set<string>();
  let groupId: string | undefined;
  let stopped = false;
  let writesAtNewBase = 0;
  const bases = new Set([firstBase]);

  async function send(method: string, path: string, body: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: { "Content-Type": "application/scim+json", Authorization: `Bearer ${token}`, "User-Agent": "Azure AD SCIM client" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(10_000),
        });
      } catch {
        // The host is down (killed): no answer, so nothing to keep; the write is sent again.
        await new Promise((resolve) => setTimeout(resolve, 150));
        continue;
      }
      const text = await response.text();
      const parsed = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
      statuses.push(response.status);
      if (response.status === 503) {
        if (response.headers.get("retry-after") === null) unexpected.push(`503 without Retry-After on ${method} ${path}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
        continue;
      }
      if (response.status === 421) {
        const named = /its SCIM base URL is (\S+?)\. /.exec(String(parsed["detail"]))?.[1];
        if (named === undefined || bases.has(named)) {
          unexpected.push(`421 naming ${String(named)} on ${method} ${path}`);
          return { status: 421, body: parsed, etag: null };
        }
        base = named;
        bases.add(named);
        continue;
      }
      if (attempt > 0 && method === "POST" && response.status === 409) {
        // A create answered only after a kill may have committed: Entra looks the user up, as it does before any create.
        return { status: 409, body: parsed, etag: null };
      }
      return { status: response.status, body: parsed, etag: response.headers.get("etag") };
    }
  }

  async function write(method: string, path: string, body: unknown): Promise<Answer | undefined> {
    const atStart = base;
    const answer = await send(method, path, body);
    if (answer.status >= 200 && answer.status < 300) {
      if (base !== firstBase && base === atStart) writesAtNewBase += 1;
      return answer;
    }
    if (answer.status !== 409) unexpected.push(`${answer.status} on ${method} ${path}: ${JSON.stringify(answer.body)}`);
    return answer;
  }

  const run = (async () => {
    const group = await write("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Movers", externalId: "entra-group" });
    groupId = String(group?.body["id"]);
    for (let n = 0; !stopped; n++) {
      let created = await write("POST", "/Users", entraUser(n));
      if (created?.status === 409) {
        const found = await send("GET", `/Users?filter=${encodeURIComponent(`userName eq "mover-${n}@acme-move.example"`)}`, undefined);
        const resource = (found.body["Resources"] as Record<string, unknown>[] | undefined)?.[0];
        if (resource === undefined) {
          unexpected.push(`create of mover-${n} refused 409 yet no such user`);
          continue;
        }
        created = await send("GET", `/Users/${String(resource["id"])}`, undefined);
      }
      if (created === undefined || created.status >= 300) continue;
      const id = String(created.body["id"]);
      users.set(id, { id, version: created.etag ?? "", active: true });
      const patched = await write("PATCH", `/Users/${id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "Replace", path: "active", value: false }],
      });
      if (patched && patched.status < 300) users.set(id, { id, version: patched.etag ?? "", active: false });
      const added = await write("PATCH", `/Groups/${groupId}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "Add", path: "members", value: [{ value: id }] }],
      });
      if (added && added.status < 300) grouped.add(id);
    }
  })();

  return {
    base: () => base,
    writesAtNewBase: () => writesAtNewBase,
    statuses,
    unexpected,
    users,
    grouped,
    groupId: () => groupId,
    async stop(): Promise<void> {
      stopped = true;
      await run;
    },
  };
}

/** The host's move of `orgId`, as its operator API says (undefined while it is down). */
async function moveAt(url: string, orgId: string): Promise<Record<string, unknown> | undefined> {
  try {
    const reply = await call(`${url}/analytics/v1/regions/moves/${orgId}`, { token: OPERATOR_KEY });
    return reply.status === 200 ? reply.body : undefined;
  } catch {
    return undefined;
  }
}

function regionMove(databases: () => RegionDatabases): void {
  it("moves an organization from us to eu under writes, through a SIGKILL of either host at each step", { timeout: 240_000 }, async () => {
    const { urls, contents } = databases();
    const { us, eu, env } = await regionPair({
      urls,
      regionKey: REGION_KEY,
      operatorKey: OPERATOR_KEY,
      orgs: { us: `stays:${STAYS_TOKEN}` },
      // Each step lasts at least this long, so the test can kill a host at each.
      env: { SCIMKIT_REGION_SYNC_SECONDS: "1", SCIMKIT_REGION_MOVE_STEP_MS: "400" },
    });
    const hosts: Record<"us" | "eu", Host> = { us: startHost(env.us), eu: startHost(env.eu) };
    await Promise.all([hosts.us.waitFor(/listening on port/), hosts.eu.waitFor(/listening on port/)]);
    const restart = async (region: "us" | "eu"): Promise<void> => {
      const host = hosts[region];
      host.child.kill("SIGKILL");
      if (host.child.exitCode === null && host.child.signalCode === null) await new Promise((resolve) => host.child.once("exit", resolve));
      hosts[region] = startHost(env[region]);
      await hosts[region].waitFor(/listening on port/);
    };

    const stays = await call(`${us}/scim/Organizations/stays/v2/Users`, {
      method: "POST",
      token: STAYS_TOKEN,
      body: {
        schemas: [USER_SCHEMA],
        userName: "stays.person@stays-us.example",
        name: { givenName: "S", familyName: "T" },
        emails: [{ value: "stays.person@stays-us.example", type: "work" }],
      },
    });
    expect(stays.status).toBe(201);

    // What a move refuses, before anything is recorded.
    const moves = `${us}/analytics/v1/regions/moves`;
    expect((await call(moves, { method: "POST", token: OPERATOR_KEY, body: { organizationId: "acme", to: "us" } })).status).toBe(400);
    expect((await call(moves, { method: "POST", token: OPERATOR_KEY, body: { organizationId: "nobody", to: "eu" } })).status).toBe(404);
    expect((await call(`${eu}/regions/v1/moves/acme/begin`, { method: "POST", body: { moveId: "x", from: "us" } })).status).toBe(401);

    // Its token is issued by the operator API, so only its hash is stored — and moves with it.
    const acme = await call(`${us}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { id: "acme", name: "Acme" },
    });
    expect(acme.status).toBe(201);
    const TOKEN = String((acme.body["scim"] as Record<string, unknown>)["token"]);
    // A poll receiver (RFC 8936) of its events, which it never polls before the move: every event stays undelivered.
    const receiver = await call(`${us}/analytics/v1/organizations/acme/event-receivers`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { url: "https://receiver.acme-move.example/events", delivery: "poll", authorization: POLL_SECRET },
    });
    expect(receiver.status).toBe(201);
    const receiverId = String(receiver.body["id"]);
    const writer = entraWriter(`${us}/scim/Organizations/acme/v2`, TOKEN);
    await eventually(
      async () => writer.users.size,
      (size) => size >= 5,
    );
    const started = await call(moves, { method: "POST", token: OPERATOR_KEY, body: { organizationId: "acme", to: "eu" } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ orgId: "acme", side: "source", from: "us", to: "eu", step: "requested" });
    expect((await call(moves, { method: "POST", token: OPERATOR_KEY, body: { organizationId: "acme", to: "eu" } })).status).toBe(409);

    // Killed at each step, each host in turn, and restarted.
    const seen: string[] = [];
    for (const [step, victim] of [
      ["freezing", "us"],
      ["copying", "eu"],
      ["verifying", "us"],
      ["switching", "eu"],
      ["cleaning", "us"],
    ] as const) {
      const move = await eventually(
        () => moveAt(us, "acme"),
        (value) => value?.["step"] === step,
      );
      expect(move?.["step"], `${step} (seen: ${seen.join(", ")}; ${String(move?.["lastError"])})`).toBe(step);
      seen.push(step);
      if (step === "copying") {
        // The operator API's writes of it are frozen too, and so is a new child (its cleanup could not delete one).
        const renamed = await call(`${us}/analytics/v1/organizations/acme`, {
          method: "PATCH",
          token: OPERATOR_KEY,
          body: { name: "Acme 2" },
        });
        expect(renamed.status).toBe(503);
        const child = await call(`${us}/analytics/v1/organizations`, {
          method: "POST",
          token: OPERATOR_KEY,
          body: { id: "acme-child", name: "Acme child", parentId: "acme" },
        });
        expect(child.status).toBe(503);
      }
      await restart(victim);
    }
    const done = await eventually(
      () => moveAt(us, "acme"),
      (value) => value?.["step"] === "done",
    );
    expect(done).toMatchObject({ side: "source", to: "eu", step: "done" });
    expect(await moveAt(eu, "acme")).toMatchObject({ side: "target", from: "us", step: "home" });

    // The identity provider's admin followed the 421 to eu; its writes go on there.
    await eventually(
      async () => writer.writesAtNewBase(),
      (count) => count >= 3,
    );
    await writer.stop();
    expect(writer.unexpected).toEqual([]);
    expect(writer.base()).toBe(`${eu}/scim/Organizations/acme/v2`);
    expect(new Set(writer.statuses.map((status) => (status >= 200 && status < 300 ? "2xx" : String(status))))).toEqual(
      new Set(["2xx", "503", "421"]),
    );

    // Nothing lost: every acknowledged write is at eu, with its id and its version, with the same token.
    const at = `${eu}/scim/Organizations/acme/v2`;
    for (const user of writer.users.values()) {
      const response = await fetch(`${at}/Users/${user.id}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(response.status, user.id).toBe(200);
      expect(response.headers.get("etag"), user.id).toBe(user.version);
      expect(((await response.json()) as { active: boolean }).active).toBe(user.active);
    }
    const group = await call(`${at}/Groups/${String(writer.groupId())}`, { token: TOKEN });
    const members = new Set((group.body["members"] as { value: string }[]).map((member) => member.value));
    expect(members).toEqual(writer.grouped);
    const listed = await call(`${at}/Users?count=1`, { token: TOKEN });
    expect(listed.body["totalResults"]).toBe(writer.users.size);
    // Its undelivered events moved with it: polled at eu, signed by its key, issued by its new base URL.
    const poll = await fetch(`${eu}/scim/Organizations/acme/events/poll/${receiverId}`, {
      method: "POST",
      headers: { Authorization: POLL_SECRET, "Content-Type": "application/json" },
      body: JSON.stringify({ returnImmediately: true, maxEvents: 100 }),
    });
    expect(poll.status).toBe(200);
    const sets = Object.values(((await poll.json()) as { sets: Record<string, string> }).sets);
    expect(sets.length).toBeGreaterThan(0);
    const claims = JSON.parse(Buffer.from(String(sets[0]).split(".")[1] ?? "", "base64url").toString()) as { iss: string };
    expect(claims.iss).toBe(`${eu}/scim/Organizations/acme/v2`);
    // us answers 421 for it now, and neither region lists it twice.
    const atUs = await call(`${us}/scim/Organizations/acme/v2/Users`, { token: TOKEN });
    expect(atUs.status).toBe(421);
    expect(String(atUs.body["detail"])).toContain(`${eu}/scim/Organizations/acme/v2`);
    const usFeed = await call(`${us}/regions/v1/directory`, { token: REGION_KEY });
    expect(JSON.stringify(usFeed.body)).not.toContain('"acme"');
    const euFeed = await call(`${eu}/regions/v1/directory`, { token: REGION_KEY });
    expect(JSON.stringify(euFeed.body)).toContain('"acme"');
    // us's other organization is untouched.
    expect((await call(`${us}/scim/Organizations/stays/v2/Users?count=1`, { token: STAYS_TOKEN })).body["totalResults"]).toBe(1);

    // A move cancelled before its switch leaves nothing at the target, and writes resume at the source.
    const initech = await call(`${us}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { id: "initech", name: "Initech" },
    });
    expect(initech.status).toBe(201);
    const initechToken = String((initech.body["scim"] as Record<string, unknown>)["token"]);
    const initechUsers = `${us}/scim/Organizations/initech/v2/Users`;
    const person = {
      schemas: [USER_SCHEMA],
      userName: "rollback.person@initech-move.example",
      name: { givenName: "R", familyName: "P" },
      emails: [{ value: "rollback.person@initech-move.example", type: "work" }],
    };
    expect((await call(initechUsers, { method: "POST", token: initechToken, body: person })).status).toBe(201);
    // From a shell this time, with eu down: the CLI records the move in us's database, the us host
    // runs it, and it waits at the copy, retrying, with the organization's writes frozen at us.
    hosts.eu.child.kill("SIGKILL");
    const cliEnv = { ...env.us, PORT: "0" };
    const recorded = await scimkit(["regions", "move", "initech", "--to", "eu"], cliEnv);
    expect(recorded.status, recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/^initech {2}us -> eu {2}source {2}requested/);
    const stuck = await eventually(
      () => moveAt(us, "initech"),
      (value) => value?.["step"] === "copying" && value["lastError"] !== undefined,
    );
    expect(stuck).toMatchObject({ step: "copying", lastError: expect.stringContaining("region eu could not be reached") });
    for (const [args, status, message] of [
      [["regions", "move", "stays", "--to", "mars"], 2, /--to is the region to move to: one of eu/],
      [["regions", "move", "initech", "--to", "eu"], 1, /initech is in a move already/],
      [["regions", "cancel", "nobody"], 1, /nobody is not moving out of region us/],
    ] as const) {
      const run = await scimkit(args, cliEnv);
      expect(run.status, args.join(" ")).toBe(status);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    // The operator API refuses it too: the database's record is the one that counts.
    expect((await call(moves, { method: "POST", token: OPERATOR_KEY, body: { organizationId: "initech", to: "eu" } })).status).toBe(409);
    const frozen = await call(initechUsers, {
      method: "POST",
      token: initechToken,
      body: { ...person, userName: "frozen@initech-move.example" },
    });
    expect(frozen.status).toBe(503);
    // Cancelled with the target down: writes resume at once; the target is told to drop what it holds once it is back.
    const cancelling = scimkit(["regions", "cancel", "initech", "--wait", "--json"], cliEnv);
    await eventually(
      () => moveAt(us, "initech"),
      (value) => value?.["step"] === "rolling-back",
    );
    const resumed = {
      ...person,
      userName: "after.rollback@initech-move.example",
      emails: [{ value: "after.rollback@initech-move.example", type: "work" }],
    };
    expect((await call(initechUsers, { method: "POST", token: initechToken, body: resumed })).status).toBe(201);
    const down = hosts.eu.child;
    if (down.exitCode === null && down.signalCode === null) await new Promise((resolve) => down.once("exit", resolve));
    hosts.eu = startHost(env.eu);
    await hosts.eu.waitFor(/listening on port/);
    const cancelled = await cancelling;
    expect(cancelled.status, cancelled.stderr).toBe(0);
    const steps = cancelled.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { step: string }).step);
    // A line per change: the rollback's own failures while eu was down come as rolling-back lines with their error.
    expect(steps[0]).toBe("rolling-back");
    expect(steps.at(-1)).toBe("rolled-back");
    expect(new Set(steps)).toEqual(new Set(["rolling-back", "rolled-back"]));
    const listedMoves = await scimkitJson<{ data: { orgId: string; step: string }[] }>(["regions", "moves", "--json"], cliEnv);
    expect(listedMoves.data.map(({ orgId, step }) => `${orgId} ${step}`)).toEqual(["initech rolled-back", "acme done"]);
    expect(await moveAt(eu, "initech")).toBeUndefined();
    // After the switch a move is finished, not rolled back.
    expect((await call(`${moves}/acme`, { method: "DELETE", token: OPERATOR_KEY })).status).toBe(404);

    killHosts();
    await Promise.all(
      Object.values(hosts).map((host) =>
        host.child.exitCode === null ? new Promise((resolve) => host.child.once("exit", resolve)) : undefined,
      ),
    );
    const usBytes = await contents("us");
    const euBytes = await contents("eu");
    expect(euBytes).toContain("mover-0@acme-move.example");
    expect(usBytes).not.toContain("acme-move.example");
    expect(usBytes).not.toContain("entra-group");
    expect(euBytes).not.toContain("initech-move.example");
    expect(euBytes).not.toContain("stays-us.example");
    expect(usBytes).toContain("stays-us.example");
    // Each audit trail records the move.
    expect(usBytes).toContain("region.moveOut");
    expect(euBytes).toContain("region.moveIn");
  });
}

describe("a move between two SQLite files", () => {
  const dir = mkdtempSync(join(tmpdir(), "scimkit-move-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  regionMove(() => sqliteDatabases(dir));
});

describeTwoPostgresDatabases("a move between two PostgreSQL databases", (databases) => regionMove(databases));
