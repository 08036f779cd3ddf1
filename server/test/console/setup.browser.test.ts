/**
 * The setup page (issue 31, point 2) in Debian's chromium, against a real host: the operator makes
 * a setup link through the operator API; the link opens the page in a fresh browser context
 * without any key; choosing Okta shows Okta's fields and gives the organization the `okta`
 * profile; the token is shown once (a reload says it was shown); requests of an Okta replay sent
 * with it appear on the page as they arrive, the failed ones explained in words; and a used, a
 * revoked, an expired and an unknown link, and a setup whose link is revoked while it is open, say
 * so and grant nothing. Every state of the page passes axe-core's WCAG 2.1 A/AA rules, and it
 * fits a phone's width.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { sqlAnalyticsStore } from "@scimkit/server";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { hashToken } from "scimkit";
import { sqlStore } from "scimkit/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSetupCode } from "../../src/analytics/setup-links.js";
import {
  type ConsoleHost,
  type ExpectedFailure,
  launchChromium,
  OPERATOR_KEY,
  scim,
  signIn,
  startConsoleHost,
  watchViolations,
} from "./console-host.fixture.js";

/** axe-core's browser build, evaluated in the page by the driver. */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Okta's replay of a user's lifecycle (test/fixtures/idp/okta/), whose first requests the test sends. */
interface ReplayStep {
  readonly name: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers?: Record<string, string>;
    readonly body?: Record<string, unknown>;
  };
  readonly expect: { readonly status: number };
}
const OKTA = JSON.parse(readFileSync(new URL("../../../test/fixtures/idp/okta/user-lifecycle.json", import.meta.url), "utf8")) as {
  readonly headers: Record<string, string>;
  readonly steps: readonly ReplayStep[];
};

const SESSION_KEY = "scimkit.console.setupSession";

let server: ConsoleHost;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleHost(), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

/** The operator API, with the operator key. */
async function operator(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.analyticsUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A new setup link of `orgId`, as the operator makes it; its id and the URL to send the IT admin. */
async function createLink(orgId: string, body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const created = await operator("POST", `/organizations/${orgId}/setup-links`, body);
  expect(created.status).toBe(201);
  const { link, url } = (await created.json()) as { link: { id: string }; url: string };
  return { id: link.id, url };
}

/** A fresh browser context (its own sessionStorage: another browser, as far as the page can tell), with the clipboard allowed. */
async function newPage(width = 1280, height = 900): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
  return { context, page: await context.newPage() };
}

/** axe-core's violations of WCAG 2.0 and 2.1, levels A and AA, on the page as it is. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the driver, which the page's CSP does not govern (an injected <script>, inline
  // or not from 'self', would be refused by it), so the page is checked under its real CSP.
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(AXE);
  const { violations, passed } = await page.evaluate<{ violations: string[]; passed: number }>(
    `axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(WCAG_A_AA)} } }).then((result) => ({
      violations: result.violations.map((violation) => violation.id + ": " + violation.help + " at " + violation.nodes.map((node) => node.target.join(" ")).join(", ")),
      passed: result.passes.length,
    }))`,
  );
  // No violation of no rule run would pass as well: the check must have checked something.
  expect(passed).toBeGreaterThan(0);
  return violations;
}

/** The setup session this context's sessionStorage holds, if any. */
const storedSession = (page: Page): Promise<string | null> =>
  page.evaluate<string | null>(`sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})`);

/** A request of Okta's replay, with `token`, as Okta sends it; answers its status. */
async function sendAsOkta(baseUrl: string, token: string, request: ReplayStep["request"]): Promise<number> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: { ...OKTA.headers, ...request.headers, Authorization: `Bearer ${token}` },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The replay's step named `start`…, for its request and the status Okta's documentation shows. */
function step(start: string): ReplayStep {
  const found = OKTA.steps.find((candidate) => candidate.name.startsWith(start));
  if (found === undefined) throw new Error(`Okta's replay has no step "${start}…"`);
  return found;
}

describe("the setup page", () => {
  it("opens from the operator's link without a key: Okta's fields and profile, the token once, the requests arriving, the failures explained", async () => {
    expect((await operator("POST", "/organizations", { name: "Umbrella", id: "umbrella" })).status).toBe(201);
    const { url } = await createLink("umbrella");
    expect(url).toMatch(new RegExp(`^${server.origin}/console/setup#code=scimkit_link_`));

    const { context, page } = await newPage();
    const watched = await watchViolations(page);
    const authorizations: string[] = [];
    page.on("request", (request: Request) => {
      if (new URL(request.url()).pathname.startsWith("/analytics/")) authorizations.push(request.headers()["authorization"] ?? "(none)");
    });
    await page.goto(url);
    await page.getByRole("heading", { level: 1, name: "Connect an identity provider to Umbrella" }).waitFor();
    // The code left the address at once; the session is this tab's, and no API key was asked for or sent.
    expect(new URL(page.url()).hash).toBe("");
    expect(page.url()).toBe(`${server.origin}/console/setup`);
    expect(await storedSession(page)).toMatch(/^scimkit_setup_/);
    expect(await page.evaluate<string | null>('sessionStorage.getItem("scimkit.console.apiKey")')).toBeNull();
    expect(await page.getByLabel("API key").count()).toBe(0);
    expect(authorizations[0]).toBe("(none)");
    expect(authorizations.slice(1).every((value) => /^Bearer scimkit_setup_/.test(value))).toBe(true);
    expect(await accessibilityViolations(page), "the choice").toEqual([]);

    // Choose Okta with the keyboard alone: Tab into the radio group, an arrow key to Okta, Tab to the button.
    const providers = page.getByRole("group", { name: "Which identity provider will send Umbrella's users?" });
    expect(await providers.getByRole("radio").evaluateAll((radios) => radios.map((radio) => radio.id))).toEqual([
      "idp-entra",
      "idp-okta",
      "idp-google",
      "idp-onelogin",
      "idp-jumpcloud",
      "idp-ping",
      "idp-other",
    ]);
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.id")).toBe("idp-entra");
    expect(await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid");
    await page.keyboard.press("ArrowDown");
    expect(await page.getByRole("radio", { name: "Okta" }).isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Choose this identity provider");
    await page.keyboard.press("Enter");
    await page.getByTestId("provider-chosen").getByText("Okta chosen").waitFor();

    // Okta's fields, as its Provisioning tab names them, with the base URL to copy.
    const fields = page.getByTestId("provider-fields");
    await fields.getByRole("heading", { name: "2. Fill in Okta's admin screen" }).waitFor();
    expect(await fields.locator("dt").allTextContents()).toEqual([
      "SCIM connector base URL",
      "Unique identifier field for users",
      "Supported provisioning actions",
      "Authentication Mode",
      "Authorization",
    ]);
    const baseUrl = `${server.origin}/scim/Organizations/umbrella/v2`;
    expect(await fields.getByTestId("scim-base-url").textContent()).toBe(baseUrl);
    // Still with the keyboard: the next Tab reaches the copy button, then the token's.
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Copy SCIM connector base URL");
    await page.keyboard.press("Enter");
    await fields.getByRole("status").getByText("Copied").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(baseUrl);
    expect(await fields.textContent()).toContain("Test Connector Configuration");
    // The organization now has Okta's compatibility profile.
    const organization = (await (await operator("GET", "/organizations/umbrella")).json()) as { compatibility?: string };
    expect(organization.compatibility).toBe("okta");
    expect(await accessibilityViolations(page), "the fields").toEqual([]);

    // The token, shown once, copyable as it is and as Okta's Authorization value.
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Reveal the token");
    await page.keyboard.press("Enter");
    await page.getByTestId("secret").waitFor();
    const token = (await page.getByTestId("secret").textContent()) ?? "";
    expect(token).toMatch(/^scimkit_\S{20,}$/);
    await page.getByRole("button", { name: "Copy secret" }).click();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(token);
    await page.getByRole("button", { name: "Copy Authorization" }).click();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(`Bearer ${token}`);
    expect(await accessibilityViolations(page), "the token").toEqual([]);

    // A reload keeps the session (this tab's) and never shows the token again.
    await page.reload();
    await page.getByTestId("token-shown-already").waitFor();
    expect(await page.getByTestId("token-shown-already").textContent()).toContain("shown already");
    expect(await page.getByTestId("token-shown-already").textContent()).toContain("an administrator of Umbrella can rotate it");
    expect(await page.getByTestId("secret").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Reveal the token" }).count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    await page.getByTestId("requests-said").getByText("Waiting for Okta's first request.").waitFor();

    // Okta connects with the token: its replay's first requests, then two it gets wrong.
    const sent: [ReplayStep["request"], number][] = [
      [step("Determine if the User already exists: no match").request, 200],
      [step("Create the User (").request, 201],
      [step("Create the same User again").request, 409],
    ];
    const { userName: _left, ...withoutUserName } = step("Create the User (").request.body ?? {};
    sent.push([{ ...step("Create the User (").request, body: { ...withoutUserName, externalId: "00u-no-username" } }, 400]);
    sent.push([step("Retrieve a User that does not exist").request, 404]);
    for (const [request, status] of sent)
      expect(await sendAsOkta(baseUrl, token, request), `${request.method} ${request.path}`).toBe(status);

    // Each appears on the page, newest first, announced; the failed ones explained, naming Okta's fields.
    const items = page.getByTestId("setup-request");
    await items.nth(sent.length - 1).waitFor();
    expect(await items.count()).toBe(sent.length);
    expect(await page.getByTestId("requests-said").textContent()).toMatch(/new request/i);
    const lines = await page.locator(".setup-request-line").allTextContents();
    expect(lines[0]).toContain("GET /Users/010101001010101011001010101011");
    expect(lines[0]).toContain("404");
    expect(lines.at(-1)).toContain('GET /Users?filter=userName eq "test.user@okta.local"&startIndex=1&count=100');
    const missing = items.filter({ hasText: "GET /Users/010101001010101011001010101011" }).getByTestId("setup-request-explanation");
    expect(await missing.textContent()).toContain("No resource with this id exists in this organization");
    expect(await missing.textContent()).toContain(
      "What to change in Okta: If every request fails like this, check that Okta's SCIM connector base URL",
    );
    const duplicate = items.filter({ hasText: "409" }).getByTestId("setup-request-explanation");
    expect(await duplicate.textContent()).toContain("Another resource already has this userName");
    expect(await duplicate.textContent()).toContain("What to change in Okta: In Okta, check the attribute mappings under To App");
    const refused = items.filter({ hasText: "400" }).getByTestId("setup-request-explanation");
    expect(await refused.textContent()).toContain("userName");
    expect(await refused.textContent()).toContain("What to change in Okta");
    expect(await items.filter({ hasText: "201" }).getByTestId("setup-request-explanation").count()).toBe(0);
    expect(await page.getByTestId("provider-mismatch").count()).toBe(0);
    expect(await accessibilityViolations(page), "the requests").toEqual([]);

    // On a phone: nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);

    expect(await watched.violations()).toEqual([]);
    expect(watched.errors).toEqual([]);

    // The same link in another browser: used, and it grants nothing there.
    const other = await newPage();
    const otherWatched = await watchViolations(other.page, [{ status: 410, path: "/analytics/v1/setup/session" }]);
    await other.page.goto(url);
    await other.page.getByRole("heading", { level: 1, name: "This setup link cannot be used" }).waitFor();
    expect(await other.page.getByTestId("setup-gone").textContent()).toBe(
      "This setup link was opened already: a link opens once. Ask whoever sent it for a new one.",
    );
    expect(await storedSession(other.page)).toBeNull();
    expect(await other.page.getByRole("radio").count()).toBe(0);
    expect(await other.page.getByRole("button").count()).toBe(0);
    expect(await accessibilityViolations(other.page), "the link gone").toEqual([]);
    expect(await otherWatched.violations()).toEqual([]);
    expect(otherWatched.errors).toEqual([]);
    await other.context.close();

    // The link pasted again into the tab that opened it (only the fragment changes: no reload): its
    // setup goes on, saying the link opened nothing, and the code leaves the address again.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url);
    await page.getByTestId("token-shown-already").waitFor();
    expect(await page.getByRole("status").filter({ hasText: "The link in the address opened nothing" }).textContent()).toBe(
      "The link in the address opened nothing: This setup link was opened already: a link opens once. Ask whoever sent it for a new one. This tab's setup, opened earlier, goes on below.",
    );
    expect(new URL(page.url()).hash).toBe("");
    // The one failure Chromium logs is that 410, the page's own and explained.
    expect(watched.errors).toEqual(["Failed to load resource: the server responded with a status of 410 (Gone)"]);
    await context.close();
  }, 120_000);

  it("says so, and grants nothing, for a revoked, an expired or an unknown link, no link, and a setup whose link is revoked while open", async () => {
    expect((await operator("POST", "/organizations", { name: "Initrode", id: "initrode" })).status).toBe(201);
    const SESSION: ExpectedFailure = { status: 410, path: "/analytics/v1/setup/session" };

    /** The page `url` opens in a fresh context: what it says, and whether it kept a session. */
    const gone = async (url: string, expected: readonly ExpectedFailure[]): Promise<string> => {
      const { context, page } = await newPage();
      const watched = await watchViolations(page, expected);
      await page.goto(url);
      await page.getByRole("heading", { level: 1, name: "This setup link cannot be used" }).waitFor();
      const said = (await page.getByTestId("setup-gone").textContent()) ?? "";
      expect(await storedSession(page)).toBeNull();
      expect(await page.getByRole("button").count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await watched.violations()).toEqual([]);
      expect(watched.errors).toEqual([]);
      await context.close();
      return said;
    };

    const revoked = await createLink("initrode");
    expect((await operator("DELETE", `/organizations/initrode/setup-links/${revoked.id}`)).status).toBe(200);
    expect(await gone(revoked.url, [SESSION])).toBe("This setup link was revoked. Ask whoever sent it for a new one.");

    // An expired link: the host runs on the real clock and a link lasts 5 minutes at least, so the
    // test writes one that expired a minute ago into the host's database, as createSetupLink would.
    const code = newSetupCode();
    const store = await sqlStore({ sqlite: server.database, migrate: false });
    try {
      const analytics = await sqlAnalyticsStore(store, { migrate: false });
      const now = Date.now();
      await analytics.createSetupLink(
        {
          id: randomUUID(),
          orgId: "initrode",
          createdAt: new Date(now - 10 * 60_000).toISOString(),
          expiresAt: new Date(now - 60_000).toISOString(),
        },
        hashToken(code),
      );
    } finally {
      await store.close();
    }
    const expired = `${server.origin}/console/setup#code=${encodeURIComponent(code)}`;
    expect(await gone(expired, [SESSION])).toBe("This setup link has expired. Ask whoever sent it for a new one.");

    const unknown = `${server.origin}/console/setup#code=scimkit_link_not-one-this-host-issued`;
    expect(await gone(unknown, [{ status: 404, path: "/analytics/v1/setup/session" }])).toBe(
      "This is not a setup link this service issued: check that the whole link was copied.",
    );
    expect(await gone(`${server.origin}/console/setup`, [])).toContain("this address has none");

    // Revoked while its page is open: the page's next request is refused, and the page says why.
    const open = await createLink("initrode", { identityProvider: "okta" });
    const { context, page } = await newPage();
    const watched = await watchViolations(page, [{ status: 401, path: "/analytics/v1/setup/requests" }]);
    await page.goto(open.url);
    // The operator suggested Okta: the page offers it, and gives its profile only once chosen.
    await page.getByTestId("provider-chosen").getByText("Whoever sent this link suggests Okta").waitFor();
    expect(await page.getByRole("radio", { name: "Okta" }).isChecked()).toBe(true);
    expect(await page.getByTestId("provider-fields").count()).toBe(0);
    await page.getByRole("button", { name: "Choose this identity provider" }).click();
    await page.getByTestId("requests-said").getByText("Waiting for Okta's first request.").waitFor();
    // A request from another provider than the one chosen is pointed out.
    await page.getByRole("button", { name: "Reveal the token" }).click();
    const token = (await page.getByTestId("secret").textContent()) ?? "";
    expect((await scim(`${server.origin}/scim/Organizations/initrode/v2`, token, "GET", "/Users?count=1")).status).toBe(200);
    expect(await page.getByTestId("provider-mismatch").textContent()).toBe(
      "The latest request came from Microsoft Entra ID, not Okta: choose Microsoft Entra ID in step 1, so that its compatibility profile applies.",
    );
    // The token outlives the link; the page does not.
    expect((await operator("DELETE", `/organizations/initrode/setup-links/${open.id}`)).status).toBe(200);
    await page.getByRole("heading", { level: 1, name: "This setup link cannot be used" }).waitFor();
    expect(await page.getByTestId("setup-gone").textContent()).toBe(
      "This setup has ended: its link was revoked. Ask whoever sent it for a new one.",
    );
    expect(await storedSession(page)).toBeNull();
    expect((await scim(`${server.origin}/scim/Organizations/initrode/v2`, token, "GET", "/Users?count=1")).status).toBe(200);
    expect(await watched.violations()).toEqual([]);
    expect(watched.errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("is made from the organization's page in the console, its URL shown once, and revoked there", async () => {
    const orgId = `links-${randomUUID().slice(0, 8)}`;
    expect((await operator("POST", "/organizations", { id: orgId, name: "Links Inc" })).status).toBe(201);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const watched = await watchViolations(page);
      await signIn(page, server.origin);
      await page.getByRole("link", { name: "Links Inc" }).click();
      const section = page.getByTestId("setup-links");
      await section.getByTestId("no-setup-links").waitFor();
      await section.getByLabel("Identity provider").selectOption("okta");
      await section.getByLabel("Valid for").selectOption({ label: "1 day" });
      await section.getByRole("button", { name: "Create a setup link" }).click();
      const url = (await section.getByTestId("secret").textContent()) ?? "";
      expect(url).toMatch(new RegExp(`^${server.origin}/console/setup#code=scimkit_link_`));
      await section.getByRole("button", { name: "I have copied it, hide it" }).click();
      expect(await section.getByTestId("secret").count()).toBe(0);
      // Listed as the operator API has it: for Okta, not opened, never with its code.
      const listed = (await (await operator("GET", `/organizations/${orgId}/setup-links`)).json()) as {
        data: { id: string; identityProvider?: string; expiresAt: string; createdAt: string }[];
      };
      expect(listed.data).toHaveLength(1);
      const [link] = listed.data;
      expect(link?.identityProvider).toBe("okta");
      expect(Date.parse(link?.expiresAt ?? "") - Date.parse(link?.createdAt ?? "")).toBe(24 * 60 * 60 * 1000);
      const row = section.getByTestId(`setup-link-${link?.id}`);
      expect(await row.getByTestId("setup-link-state").textContent()).toBe("not opened yet");
      expect(await section.textContent()).not.toContain("scimkit_link_");
      // Revoked there: it opens nothing.
      page.once("dialog", (dialog) => void dialog.accept());
      await row.getByRole("button", { name: /Revoke/ }).click();
      await row
        .getByTestId("setup-link-state")
        .filter({ hasText: /^revoked/ })
        .waitFor();
      const code = decodeURIComponent(new URL(url).hash.replace(/^#code=/, ""));
      const opened = await fetch(`${server.analyticsUrl}/setup/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code }),
      });
      expect(opened.status).toBe(410);
      expect(await watched.violations()).toEqual([]);
      expect(watched.errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
