/**
 * What the console's browser tests and its screenshot script share: a real host process
 * (`npm start`'s, on a SQLite file), Debian's chromium driven by playwright-core, sign-in, and
 * SCIM traffic shaped like Microsoft Entra's.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { sqlStore } from "scimkit/sql";
import { type Host, killHosts, startHost } from "../../src/host/host-process.fixture.js";
import { addLearner } from "../../src/testkit/suites/helpers.js";

export const OPERATOR_KEY = "operator-key-for-the-console-browser-tests-0123456789";
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
/** The User-Agent Entra's provisioning service sends. */
export const ENTRA_AGENT = "Azure Active Directory SCIM Client";
/** Where the browser is: Debian's package (CI installs it; .ci/run). Nothing is downloaded. */
export const CHROMIUM = process.env["SCIMKIT_CHROMIUM"] ?? "/usr/bin/chromium";

export interface ConsoleHost {
  readonly host: Host;
  /** `http://localhost:{port}`. */
  readonly origin: string;
  /** The analytics interface's base URL. */
  readonly analyticsUrl: string;
  /** The demo simulation's id, printed by the host on its first start. */
  readonly simulationId: string;
  /** The host's SQLite file. */
  readonly database: string;
  /** Stops the host and removes its database. */
  stop(): void;
}

/**
 * The host as `npm start` runs it, with a known operator key, the demo data and a fresh SQLite
 * file; `env` adds to its environment, and `prepare` writes into the file before the host opens it.
 */
export async function startConsoleHost(
  options: { readonly env?: Record<string, string>; readonly prepare?: (database: string) => Promise<void> } = {},
): Promise<ConsoleHost> {
  const scratch = mkdtempSync(join(tmpdir(), "scimkit-console-"));
  const database = join(scratch, "console.db");
  // What a test writes into the database before the host first opens it.
  await options.prepare?.(database);
  const host = startHost({
    SCIMKIT_ORGS: "",
    SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
    DATABASE_URL: `sqlite:${database}`,
    // The tests' requests come in bursts from one client.
    SCIMKIT_RATE_LIMIT: "off",
    // The admin-user test accepts an invitation with the code the host logs, as a demo would.
    SCIMKIT_LOG_INVITATION_CODES: "true",
    // RFC 9967 delivery (the default, said here because the tests rely on it): the host builds it
    // with hostEventDelivery on this store, its own address as publicUrl, and runs the push loop
    // until it is stopped; the console's Event receivers section is then configured.
    SCIMKIT_EVENTS: "on",
    // The test's receiver listens on 127.0.0.1, which the address rules refuse unless allowed.
    SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1",
    ...options.env,
  });
  const [, analyticsUrl = ""] = await host.waitFor(/^Analytics interface: (\S+) /);
  const [, simulationId = ""] = await host.waitFor(/^Demo attack simulation: \S+\/attack-simulations\/([^/]+)\/summary$/);
  return {
    host,
    origin: new URL(analyticsUrl).origin,
    analyticsUrl,
    simulationId,
    database,
    stop: () => {
      killHosts();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Debian's chromium, headless. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No chromium at ${CHROMIUM}: the console's browser tests drive Debian's package (apt-get install chromium), ` +
        "or the Chromium SCIMKIT_CHROMIUM names. Nothing is downloaded.",
    );
  }
  // --no-sandbox: CI runs as root in a container, where chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/** A request the page makes and expects to fail: its status, and the path of its URL. */
export interface ExpectedFailure {
  readonly status: number;
  readonly path: string;
}

/**
 * Records every Content-Security-Policy violation and console error of `page` (the recorder is
 * added by the driver, outside the page's CSP). Chromium logs each fetch answered 4xx as a console
 * error ("Failed to load resource"), even one the page expects and explains — a used setup link's
 * 410, a revoked session's 401 — so `expected` names those, each by its status and path, and any
 * other failure is still recorded.
 */
export async function watchViolations(
  page: Page,
  expected: readonly ExpectedFailure[] = [],
): Promise<{ readonly violations: () => Promise<string[]>; readonly errors: string[] }> {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const failed = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text());
    const url = message.location().url;
    const path = url === "" ? "" : new URL(url).pathname;
    if (failed && expected.some((failure) => failure.status === Number(failed[1]) && failure.path === path)) return;
    errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  // A string, not a function: the tests compile without the DOM's types, and it runs in the page.
  await page.addInitScript(`
    window.cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => window.cspViolations.push(event.violatedDirective + " " + event.blockedURI));
  `);
  return {
    errors,
    violations: () => page.evaluate<string[]>("window.cspViolations"),
  };
}

/** Signs in with `key` through the form. */
export async function signIn(page: Page, origin: string, key: string = OPERATOR_KEY): Promise<void> {
  await page.goto(`${origin}/console/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Sections" }).waitFor();
}

/** A SCIM request as Entra sends it, with `token`. */
export function scim(baseUrl: string, token: string, method: string, path: string, body?: unknown, requestId?: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      "User-Agent": ENTRA_AGENT,
      ...(requestId === undefined ? {} : { "X-Request-Id": requestId }),
      ...(body === undefined ? {} : { "Content-Type": "application/scim+json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The user Entra creates for a person (its attribute mapping's defaults). */
export function entraUser(userName: string, givenName: string, familyName: string, externalId: string): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
    externalId,
    userName,
    active: true,
    displayName: `${givenName} ${familyName}`,
    emails: [{ primary: true, type: "work", value: userName }],
    name: { formatted: `${givenName} ${familyName}`, familyName, givenName },
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Engineering" },
  };
}

/**
 * A group of `size` new users, plus `alsoMember` when given: the users written straight into the
 * host's database by the library's store (500 at a time; through SCIM Bulk they took half a
 * minute of a 2-core machine, for a browser test about paging members), then one POST /Groups
 * naming them all through SCIM. Answers the group's id.
 */
export async function seedGroup(
  host: ConsoleHost,
  access: { readonly orgId: string; readonly baseUrl: string; readonly token: string },
  displayName: string,
  size: number,
  alsoMember?: string,
): Promise<string> {
  const ids: string[] = [];
  const store = await sqlStore({ sqlite: host.database, migrate: false });
  try {
    for (let start = 0; start < size; start += 500) {
      const written = await Promise.all(
        Array.from({ length: Math.min(500, size - start) }, (_, offset) => {
          const n = String(start + offset).padStart(5, "0");
          return addLearner({ resources: store }, access.orgId, `member${n}@fabrikam.example`, {
            externalId: `m-${start + offset}`,
            name: { givenName: "Member", familyName: n },
            emails: [{ type: "work", value: `member${n}@fabrikam.example` }],
          });
        }),
      );
      ids.push(...written.map((user) => user.id));
    }
  } finally {
    await store.close();
  }
  const members = [...ids, ...(alsoMember ? [alsoMember] : [])].map((value) => ({ value }));
  const created = await scim(access.baseUrl, access.token, "POST", "/Groups", {
    schemas: [GROUP_SCHEMA],
    displayName,
    externalId: `g-${displayName}`,
    members,
  });
  if (created.status !== 201) throw new Error(`POST /Groups answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { id: string }).id;
}
