/**
 * The screenshots of docs/console.md: `npm run console:screenshots` (tsx). Starts the host as
 * `npm start` does on a scratch SQLite file, sends it traffic shaped like Microsoft Entra's through
 * SCIM, and photographs each page of the console in Debian's chromium at laptop width, and the
 * provisioning log and the organizations at phone width, into docs/console/.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import {
  entraUser,
  launchChromium,
  OPERATOR_KEY,
  PATCH_SCHEMA,
  scim,
  seedGroup,
  signIn,
  startConsoleHost,
} from "../test/console/console-host.fixture.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "console");
mkdirSync(out, { recursive: true });
const built = spawnSync(process.execPath, [join(root, "scripts", "build-console.mjs"), "--if-missing"], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);

const server = await startConsoleHost();
const browser = await launchChromium();
try {
  const created = await fetch(`${server.analyticsUrl}/organizations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Contoso", id: "contoso", compatibility: "entra" }),
  });
  const { scim: access } = (await created.json()) as { scim: { baseUrl: string; token: string } };
  const { baseUrl, token } = access;
  const people = [
    ["grace@contoso.example", "Grace", "Hopper"],
    ["alan@contoso.example", "Alan", "Turing"],
    ["ada@contoso.example", "Ada", "Lovelace"],
    ["edsger@contoso.example", "Edsger", "Dijkstra"],
  ] as const;
  const ids: string[] = [];
  for (const [index, [userName, given, family]] of people.entries()) {
    const response = await scim(baseUrl, token, "POST", "/Users", entraUser(userName, given, family, `e-${1001 + index}`));
    ids.push(((await response.json()) as { id: string }).id);
  }
  await scim(baseUrl, token, "GET", `/Users?filter=${encodeURIComponent('userName eq "grace@contoso.example"')}`);
  await scim(baseUrl, token, "POST", "/Users", entraUser("grace@contoso.example", "Grace", "Hopper", "e-1001"));
  await scim(
    baseUrl,
    token,
    "PATCH",
    `/Users/${ids[0]}`,
    {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "Replace", path: "favoriteColour", value: "teal" }],
    },
    "entra-patch-favourite-colour",
  );
  await scim(baseUrl, token, "PATCH", `/Users/${ids[1]}`, {
    schemas: [PATCH_SCHEMA],
    Operations: [{ op: "Replace", path: "active", value: "False" }],
  });
  await scim(baseUrl, "scimkit_a-token-that-was-rotated-away-000000000", "GET", "/Users?count=1");
  await seedGroup(server, { orgId: "contoso", baseUrl, token }, "All staff", 250, ids[0]);

  /** The page, whole or (long pages: the directory, anything on a phone) as much as the screen shows. */
  const shoot = async (page: Page, name: string, fullPage = true): Promise<void> => {
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: join(out, `${name}.png`), fullPage });
    console.log(`docs/console/${name}.png`);
  };

  const laptop = await browser.newContext({ viewport: { width: 1366, height: 860 } });
  const page = await laptop.newPage();
  await page.goto(`${server.origin}/console/`);
  await page.getByLabel("API key").fill("scimkit_ak_…");
  await shoot(page, "sign-in");
  await signIn(page, server.origin);
  await shoot(page, "organizations");
  await page.getByRole("link", { name: "Contoso" }).click();
  await page.getByLabel("Label of a new token").fill("Entra");
  await page.getByRole("button", { name: "Issue token" }).click();
  await page.getByTestId("secret").waitFor();
  await page.getByRole("button", { name: "Rotate Entra" }).waitFor();
  await shoot(page, "organization");
  await page.getByRole("link", { name: "Provisioning log" }).last().click();
  await page.getByLabel("Failures first").check();
  await page
    .getByRole("button", { name: /PATCH \/Users/ })
    .first()
    .waitFor();
  await page
    .getByRole("button", { name: /PATCH \/Users/ })
    .first()
    .click();
  await page.getByTestId("entry-detail").waitFor();
  await page.getByText("Copy as curl").first().click();
  await shoot(page, "provisioning-log");
  await page.getByRole("link", { name: "Directory" }).first().click();
  await page.getByRole("link", { name: "Groups" }).click();
  await page.getByRole("button", { name: "All staff" }).click();
  await page
    .getByTestId("members")
    .getByText(/^Members 1–100$/)
    .waitFor();
  await shoot(page, "directory", false);
  await page.goto(`${server.origin}/console/training?simulation=${server.simulationId}`);
  await page.getByLabel("API key").fill(OPERATOR_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("img", { name: "What recipients did" }).waitFor();
  await shoot(page, "training");
  await laptop.close();

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const small = await phone.newPage();
  await signIn(small, server.origin);
  await shoot(small, "phone-organizations", false);
  await small.getByRole("link", { name: "Provisioning log" }).first().click();
  await small.getByLabel("Organization").selectOption("contoso");
  await small.getByLabel("Failures first").check();
  await small
    .getByRole("button", { name: /PATCH \/Users/ })
    .first()
    .click();
  await small.getByTestId("entry-detail").waitFor();
  // Clicking scrolled the table sideways to the button; the screenshot shows it from its start.
  await small.evaluate("document.querySelectorAll('.table-wrap').forEach((wrap) => { wrap.scrollLeft = 0; })");
  await small.getByTestId("entry-detail").scrollIntoViewIfNeeded();
  await shoot(small, "phone-provisioning-log", false);
  await phone.close();
} finally {
  await browser.close();
  server.stop();
}
