/**
 * The console's Regions page (issue 30, point 3) in Debian's chromium, against a host of region
 * `eu` whose database already holds a copy of region `us`'s directory and whose `us` peer cannot
 * be reached: the page shows both regions, that the last read of `us` failed (the copy kept), and
 * the requests that arrived for a `us` organization, per organization, without a console error.
 */
import { sqlAnalyticsStore } from "@scimkit/server";
import { sqlStore } from "scimkit/sql";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ConsoleHost, launchChromium, signIn, startConsoleHost, USER_SCHEMA, watchViolations } from "./console-host.fixture.js";
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
