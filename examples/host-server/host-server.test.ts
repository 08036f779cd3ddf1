/**
 * `npm start` as a newcomer meets it: the real process, configured from the environment,
 * provisioned over HTTP, logging each request, and stopped with SIGTERM.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";

interface Host {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

const running: ChildProcessWithoutNullStreams[] = [];

function startHost(env: Record<string, string>): Host {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/host-server/main.ts"], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.push(child);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(line);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (const line of lines) {
      const match = pattern.exec(line);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolve, reject) => {
      waiters.push({ pattern, resolve });
      child.once("exit", (code) => reject(new Error(`host exited (${code}) before printing ${pattern}; output:\n${lines.join("\n")}`)));
    });
  };
  return { child, lines, waitFor };
}

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("the host server (npm start)", () => {
  it("creates a demo organization, prints its base URL and token once, provisions a user, logs each request and stops on SIGTERM", async () => {
    const host = startHost({ SCIMKIT_ORGS: "" });
    const [, baseUrl] = await host.waitFor(/^SCIM base URL for demo: (\S+)$/);
    const [, token] = await host.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    expect(baseUrl).toMatch(/^http:\/\/localhost:\d+\/scim\/Organizations\/demo\/v2$/);

    const created = await fetch(`${baseUrl}/Users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "ada@example.com",
        name: { givenName: "Ada", familyName: "Lovelace" },
        emails: [{ value: "ada@example.com", type: "work" }],
      }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; userName: string };
    expect(body.userName).toBe("ada@example.com");

    const unauthorized = await fetch(`${baseUrl}/Users`);
    expect(unauthorized.status).toBe(401);

    await host.waitFor(/^POST \/scim\/Organizations\/demo\/v2\/Users 201 \d+\.\dms$/);
    await host.waitFor(/^GET \/scim\/Organizations\/demo\/v2\/Users 401 \d+\.\dms$/);
    expect(host.lines.filter((line) => line.includes(token as string))).toHaveLength(1);

    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    expect(code).toBe(0);
    expect(host.lines).toContain("SIGTERM received, shutting down");
  }, 30_000);

  it("serves the organizations and tokens of SCIMKIT_ORGS, each token only for its own organization", async () => {
    const host = startHost({ SCIMKIT_ORGS: "north:token-north,south:token-south" });
    const [, north] = await host.waitFor(/^SCIM base URL for north: (\S+)$/);
    const [, south] = await host.waitFor(/^SCIM base URL for south: (\S+)$/);
    expect(host.lines.some((line) => line.startsWith("Bearer token for"))).toBe(false);

    const own = await fetch(`${north}/Users`, { headers: { Authorization: "Bearer token-north" } });
    expect(own.status).toBe(200);
    const crossed = await fetch(`${south}/Users`, { headers: { Authorization: "Bearer token-north" } });
    expect(crossed.status).toBe(401);
    const config = await fetch(`${south}/ServiceProviderConfig`);
    expect(config.status).toBe(200);

    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    expect(code).toBe(0);
  }, 30_000);

  it("refuses a malformed SCIMKIT_ORGS with a message and a non-zero exit", async () => {
    const host = startHost({ SCIMKIT_ORGS: "north" });
    let stderr = "";
    host.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(host.child, "exit");
    expect(code).toBe(1);
    expect(stderr).toMatch(/north|entry 1/i);
  }, 30_000);
});
