/**
 * The console's Regions page (issue 30, point 3) in Debian's chromium, against a host of region
 * `eu` whose database already holds a copy of region `us`'s directory and whose `us` peer cannot
 * be reached: the page shows both regions, that the last read of `us` failed (the copy kept), and
 * the requests that arrived for a `us` organization, per organization, without a console error;
 * and a move of an organization to `us` (issue 30, point 4), started from the page's form, stuck
 * before its switch with the reason shown, then cancelled; and each region's totals (issue 30,
 * point 5): eu's counted by its host, us's missing with why, the sum eu's alone and said to be
 * incomplete.
 */
import { sqlAnalyticsStore } from "@scimkit/server";
import { sqlStore } from "scimkit/sql";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type ConsoleHost,
  launchChromium,
  OPERATOR_KEY,
  signIn,
  startConsoleHost,
  USER_SCHEMA,
  watchViolations,
} from "./console-host.fixture.js";
import { freePort } from "../../src/host/free-port.fixture.js";

const REGION_KEY = "region-key-for-the-console-browser-test-0123456789";

let server: ConsoleHost;
let browser: Browser;

beforeAll(async () => {
  const [port, unreachable] = [await freePort(), await freePort()];
  [server, browser] = await Promise.all([
    startConsoleHost({
      env: {
        PORT: String(port),
        SCIMKIT_REGION: "eu",
        SCIMKIT_REGIONS: `eu=http://localhost:${port},us=http://127.0.0.1:${unreachable}`,
        SCIMKIT_REGION_KEY: REGION_KEY,
      },
      // What an earlier read of us's directory left in this region's database.
      async prepare(database) {
        const store = await sqlStore({ sqlite: database });
        const analytics = await sqlAnalyticsStore(store);
        await analytics.replaceRegionEntries("us", [
          { id: "globex", name: "Globex", homeRegion: "us", status: "active", updatedAt: "2026-12-07T10:00:00.000Z" },
        ]);
        await store.close();
      },
    }),
    launchChromium(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

it("shows the regions, a failed directory read, and the requests that arrived for another region's organization", async () => {
  const misdirected = await fetch(`${server.origin}/scim/Organizations/globex/v2/Users`, {
    method: "POST",
    headers: { "Content-Type": "application/scim+json" },
    body: JSON.stringify({ schemas: [USER_SCHEMA], userName: "someone@globex.example" }),
  });
  expect(misdirected.status).toBe(421);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched = await watchViolations(page);
  await signIn(page, server.origin);
  await page.getByRole("link", { name: "Regions" }).click();
  await page.getByRole("heading", { level: 1, name: "Regions" }).waitFor();
  expect(await page.getByTestId("this-region").textContent()).toBe("eu");
  const us = page.getByTestId("region-us");
  await us.getByText("Last read failed").waitFor();
  expect(await us.textContent()).toContain(`http://127.0.0.1:`);
  // The copy of us's directory is kept while us cannot be read.
  expect(await us.locator("td").nth(2).textContent()).toBe("1");
  expect(await page.getByTestId("region-eu").textContent()).toContain("(this host)");
  const row = page.getByTestId("misdirected-globex");
  await row.waitFor();
  expect(await row.locator("td").nth(1).textContent()).toBe("us");
  // Node's fetch sends a request answered 421 once more on a new connection (RFC 9110 §15.5.20).
  expect(Number(await row.locator("td").nth(2).textContent())).toBeGreaterThanOrEqual(1);
  // The other regions' organizations, from the copy: their region and base URL, none of their data.
  const globex = page.getByTestId("elsewhere-globex");
  await globex.waitFor();
  expect(await globex.textContent()).toContain(`http://127.0.0.1:`);
  expect(await globex.locator("td").nth(2).textContent()).toBe("us");
  expect(await watched.violations()).toEqual([]);
  expect(watched.errors).toEqual([]);
  await context.close();
}, 60_000);

it("shows each region's totals and their sum, incomplete while us cannot be reached", async () => {
  const operator = { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } };
  const read = async <T>(path: string): Promise<T> => (await (await fetch(`${server.analyticsUrl}${path}`, operator)).json()) as T;
  // What eu's own API says of its organizations and their learners, to hold the page's counts to.
  const { data: organizations } = await read<{ data: { id: string; parentId?: string }[] }>("/organizations?limit=200");
  let learners = 0;
  for (const root of organizations.filter((organization) => organization.parentId === undefined)) {
    learners += (await read<{ totals: { learners: number } }>(`/organizations/${root.id}/summary?subtree=true`)).totals.learners;
  }
  expect(learners).toBeGreaterThan(0);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched = await watchViolations(page);
  await signIn(page, server.origin);
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Regions" }).click();
  await page.getByRole("heading", { level: 2, name: "Across regions" }).waitFor();
  const eu = page.getByTestId("summary-eu");
  await eu.waitFor();
  expect(await eu.getByRole("rowheader").textContent()).toBe("eu (this host)");
  expect(await eu.getByTestId("summary-organizations").textContent()).toBe(organizations.length.toLocaleString("en-US"));
  expect(await eu.getByTestId("summary-users").textContent()).toBe(learners.toLocaleString("en-US"));
  // us's host cannot be reached: its row says why, and the total is eu's alone, said to be incomplete.
  expect(await page.getByTestId("summary-us").getByTestId("summary-error").textContent()).toMatch(
    /^No totals: region us could not be reached at http:\/\/127\.0\.0\.1:\d+\/regions\/v1\/aggregates: ECONNREFUSED$/,
  );
  const total = page.getByTestId("summary-total");
  expect(await total.getByRole("rowheader").textContent()).toBe("Total (incomplete)");
  for (const cell of ["summary-organizations", "summary-users", "summary-active-users", "summary-groups"]) {
    expect(await total.getByTestId(cell).textContent(), cell).toBe(await eu.getByTestId(cell).textContent());
  }
  expect(await page.getByTestId("summary-incomplete").textContent()).toContain("leaves out us");
  expect(await watched.violations()).toEqual([]);
  expect(watched.errors).toEqual([]);
  await context.close();
}, 60_000);

it("moves an organization from the page's form: under way, stuck before its switch while us is unreachable, then cancelled", async () => {
  const created = await fetch(`${server.analyticsUrl}/organizations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Contoso", id: "contoso" }),
  });
  expect(created.status).toBe(201);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched = await watchViolations(page);
  await signIn(page, server.origin);
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Regions" }).click();
  await page.getByTestId("no-moves").waitFor();
  const form = page.getByTestId("move-form");
  await form.getByLabel("Organization").selectOption("contoso");
  await form.getByLabel("To region").selectOption("us");
  await form.getByRole("button", { name: "Move" }).click();
  await page.getByRole("status").filter({ hasText: "Moving contoso from eu to us." }).waitFor();
  const row = page.getByTestId("move-contoso");
  await row.waitFor();
  expect(await row.getByTestId("move-side").textContent()).toBe("source");
  expect(await row.getByTestId("move-regions").textContent()).toBe("eu → us");
  // us cannot be reached: the step that calls it fails and is retried, the table says why, and the
  // move stays before its switch.
  await row.getByTestId("move-last-error").filter({ hasNotText: /^—$/ }).waitFor();
  expect(["requested", "freezing", "copying", "verifying"]).toContain(await row.getByTestId("move-step").textContent());

  const cancel = row.getByRole("button", { name: "Cancel the move of contoso" });
  await cancel.click();
  await page.getByRole("status").filter({ hasText: "Rolling back the move of contoso" }).waitFor();
  await cancel.waitFor({ state: "detached" });
  // Rolling back asks us to drop its copy, so it may stay there while us is unreachable.
  const step = await row.getByTestId("move-step").textContent();
  expect(["rolling-back", "rolled-back"]).toContain(step);
  // A move not over is read again by the page itself.
  if (step === "rolling-back") {
    await page.waitForRequest((request) => request.method() === "GET" && new URL(request.url()).pathname === "/analytics/v1/regions/moves");
  }
  const kept = await fetch(`${server.analyticsUrl}/regions/moves/contoso`, { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } });
  expect(["rolling-back", "rolled-back"]).toContain(((await kept.json()) as { step: string }).step);
  expect(await watched.violations()).toEqual([]);
  expect(watched.errors).toEqual([]);
  await context.close();
}, 60_000);
