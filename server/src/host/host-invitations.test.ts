/**
 * Issue 19: the host writes admin-user invitation codes to its log only when the operator turns
 * that on for a demo; otherwise whoever reads the log could accept an invitation first. Real host
 * processes, as `npm start` runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost } from "./host-process.fixture.js";

afterEach(killHosts);

const OPERATOR_KEY = "operator-key-for-invitations-0123456789abcdef";

async function invite(analyticsUrl: string): Promise<Response> {
  const organization = await fetch(`${analyticsUrl}/organizations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Acme" }),
  });
  expect(organization.status).toBe(201);
  const { organization: created } = (await organization.json()) as { organization: { id: string } };
  return fetch(`${analyticsUrl}/admin-users/invite`, {
    method: "POST",
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ email: "new.admin@example.com", role: "admin", organizationIds: [created.id] }),
  });
}

describe("the host's invitation codes", () => {
  it("are never logged by default: inviting answers 501 saying how to deliver them", async () => {
    const host = startHost({ DATABASE_URL: "memory:", SCIMKIT_OPERATOR_KEY: OPERATOR_KEY, SCIMKIT_DEMO_DATA: "0" });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const refused = await invite(`http://localhost:${port}/analytics/v1`);
    expect(refused.status).toBe(501);
    expect(((await refused.json()) as { detail: string }).detail).toContain("SCIMKIT_LOG_INVITATION_CODES");
    expect(host.lines.join("\n")).not.toMatch(/invitation for|code [0-9a-f-]{36}\./);
  });

  it("reach the log with SCIMKIT_LOG_INVITATION_CODES=true, and the logged code is accepted once", async () => {
    const host = startHost({
      DATABASE_URL: "memory:",
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_LOG_INVITATION_CODES: "true",
    });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const analyticsUrl = `http://localhost:${port}/analytics/v1`;
    expect((await invite(analyticsUrl)).status).toBe(201);
    const [, code] = await host.waitFor(/^invitation for new\.admin@example\.com: code (\S+) /);
    const accept = () =>
      fetch(`${analyticsUrl}/invitations/accept`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code }),
      });
    expect((await accept()).status).toBe(200);
    expect((await accept()).status).toBe(404);
  });
});
