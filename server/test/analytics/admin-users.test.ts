/**
 * Admin users (spec §4.6) and invitations (our addition): list with filters, get, invite through
 * the host's hook (the code never in a response), accept once before expiry, change role,
 * organizations and status, delete — with the rules of who may manage whom.
 */
import { describe, expect, it } from "vitest";
import { POPULATED, createAnalyticsTestApp, expectInvalidFields, expectProblem, UNKNOWN, type Json } from "./analytics-harness.js";
import { adminWithKey, createWorld } from "./analytics-world.js";

const DAY = 24 * 60 * 60 * 1000;

function emails(body: unknown): string[] {
  return (body as { data: Json[] }).data.map((user) => user["email"] as string);
}

describe("POST /admin-users/invite and POST /invitations/accept", POPULATED, () => {
  it("invites through the hook without the code in the response, and accepting returns a working key once", async () => {
    const w = await createWorld();
    const invited = await w.t.post("/admin-users/invite", {
      email: "New.Person@Example.com",
      role: "viewer",
      organizationIds: [w.orgB.id, w.orgA.id],
    });
    expect(invited.status).toBe(201);
    const user = invited.body as Json;
    expect(user).toEqual({
      id: user["id"],
      email: "new.person@example.com",
      role: "viewer",
      organizationIds: [w.orgA.id, w.orgB.id].sort(),
      status: "invited",
      invitedAt: "2026-03-01T09:00:00.000Z",
      invitationExpiresAt: new Date(Date.parse("2026-03-01T09:00:00.000Z") + 7 * DAY).toISOString(),
      updatedAt: "2026-03-01T09:00:00.000Z",
    });
    expect(invited.headers["location"]).toMatch(new RegExp(`/analytics/v1/admin-users/${String(user["id"])}$`));
    const invitation = w.t.invitations.at(-1);
    expect(invitation?.adminUser).toEqual(user);
    expect(invitation?.expiresAt).toBe(user["invitationExpiresAt"]);
    const code = invitation?.code ?? "";
    expect(invited.text).not.toContain(code.slice(code.indexOf(".") + 1));

    const accepted = await w.t.post("/invitations/accept", { code }, null);
    expect(accepted.status).toBe(200);
    expect(accepted.headers["cache-control"]).toBe("no-store");
    const body = accepted.body as { adminUser: Json; apiKey: string };
    expect(body.adminUser).toMatchObject({ id: user["id"], status: "active", activatedAt: "2026-03-01T09:00:00.000Z" });
    expect(body.adminUser["invitationExpiresAt"]).toBeUndefined();
    expect(body.apiKey).toMatch(/^scimkit_ak_[A-Za-z0-9_-]{43}$/);
    const seen = await w.t.get("/organizations", body.apiKey);
    expect((seen.body as { data: Json[] }).data).toHaveLength(2);

    expectProblem(await w.t.post("/invitations/accept", { code }, null), 404, "not-found");
  });

  it("refuses an expired code, an unknown code and a code with its id part changed", async () => {
    const w = await createWorld();
    await w.t.post("/admin-users/invite", { email: "late@example.com", role: "admin", organizationIds: [w.orgA.id] });
    const code = w.t.invitations.at(-1)?.code ?? "";
    expectProblem(await w.t.post("/invitations/accept", { code: "nonsense" }, null), 404, "not-found");
    expectProblem(await w.t.post("/invitations/accept", { code: `${UNKNOWN}${code.slice(code.indexOf("."))}` }, null), 404, "not-found");
    w.t.clock.advance(7 * DAY);
    expectProblem(await w.t.post("/invitations/accept", { code }, null), 404, "not-found");
    const user = await w.t.get(`/admin-users/${w.t.invitations.at(-1)?.adminUser.id ?? ""}`);
    expect((user.body as Json)["status"]).toBe("invited");
  });

  it("honours invitationTtlMs", async () => {
    const t = await createAnalyticsTestApp({ router: { invitationTtlMs: 60_000 } });
    const org = await t.post("/organizations", { name: "Acme" });
    const orgId = (org.body as { organization: { id: string } }).organization.id;
    const invited = await t.post("/admin-users/invite", { email: "quick@example.com", role: "admin", organizationIds: [orgId] });
    expect((invited.body as Json)["invitationExpiresAt"]).toBe("2026-03-01T09:01:00.000Z");
    t.clock.advance(60_000);
    expectProblem(await t.post("/invitations/accept", { code: t.invitations.at(-1)?.code }, null), 404, "not-found");
  });

  it("refuses an e-mail that is invited or already an admin user (409), in any case", async () => {
    const w = await createWorld();
    await w.t.post("/admin-users/invite", { email: "twice@example.com", role: "admin", organizationIds: [w.orgA.id] });
    expectProblem(
      await w.t.post("/admin-users/invite", { email: "TWICE@example.com", role: "viewer", organizationIds: [w.orgA.id] }),
      409,
      "conflict",
    );
    expectProblem(
      await w.t.post("/admin-users/invite", { email: "admin-a@example.com", role: "viewer", organizationIds: [w.orgA.id] }),
      409,
      "conflict",
    );
    expect(w.t.invitations.filter((invitation) => invitation.adminUser.email === "twice@example.com")).toHaveLength(1);
  });

  it("lets an admin invite for its own organizations only; viewers may not invite", async () => {
    const w = await createWorld();
    const mine = await w.t.post(
      "/admin-users/invite",
      { email: "helper@example.com", role: "viewer", organizationIds: [w.orgA.id] },
      w.keys.adminA,
    );
    expect(mine.status).toBe(201);
    expectInvalidFields(
      await w.t.post(
        "/admin-users/invite",
        { email: "spy@example.com", role: "admin", organizationIds: [w.orgA.id, w.orgB.id] },
        w.keys.adminA,
      ),
      ["/organizationIds/1"],
    );
    expectProblem(
      await w.t.post("/admin-users/invite", { email: "x@example.com", role: "viewer", organizationIds: [w.orgA.id] }, w.keys.viewerA),
      403,
      "forbidden",
    );
    expect((await w.t.get("/admin-users?status=invited")).body).toMatchObject({ data: [{ email: "helper@example.com" }] });
  });

  it("refuses invalid bodies naming each field", async () => {
    const w = await createWorld();
    expectInvalidFields(await w.t.post("/admin-users/invite", {}), ["/email", "/role", "/organizationIds"]);
    expectInvalidFields(
      await w.t.post("/admin-users/invite", { email: "not an email", role: "owner", organizationIds: [""], extra: true }),
      ["/email", "/role", "/organizationIds/0", "/extra"],
    );
    expectInvalidFields(await w.t.post("/admin-users/invite", { email: "a@example.com", role: "admin", organizationIds: [] }), [
      "/organizationIds",
    ]);
    expectInvalidFields(
      await w.t.post("/admin-users/invite", { email: "a@example.com", role: "admin", organizationIds: [w.orgA.id, w.orgA.id] }),
      ["/organizationIds"],
    );
    expectInvalidFields(await w.t.post("/admin-users/invite", { email: "a@example.com", role: "admin", organizationIds: [UNKNOWN] }), [
      "/organizationIds/0",
    ]);
    expectInvalidFields(await w.t.post("/invitations/accept", {}, null), ["/code"]);
    expectInvalidFields(await w.t.post("/invitations/accept", { code: 42 }, null), ["/code"]);
    expect(w.t.invitations).toHaveLength(3);
  });

  it("answers 501 when the host configured no invitation hook, and withdraws an invitation the hook fails to deliver", async () => {
    const silent = await createAnalyticsTestApp({ router: { onInvitation: undefined } });
    const org = await silent.post("/organizations", { name: "Acme" });
    const orgId = (org.body as { organization: { id: string } }).organization.id;
    expectProblem(
      await silent.post("/admin-users/invite", { email: "a@example.com", role: "admin", organizationIds: [orgId] }),
      501,
      "not-implemented",
    );

    let fail = true;
    const flaky = await createAnalyticsTestApp({
      router: {
        onInvitation: () => {
          if (fail) throw new Error("mail server down");
        },
      },
    });
    const flakyOrg = await flaky.post("/organizations", { name: "Acme" });
    const flakyOrgId = (flakyOrg.body as { organization: { id: string } }).organization.id;
    const body = { email: "a@example.com", role: "admin", organizationIds: [flakyOrgId] };
    expectProblem(await flaky.post("/admin-users/invite", body), 500, "internal");
    expect(String(flaky.errors.at(-1))).toContain("mail server down");
    expect(((await flaky.get("/admin-users")).body as { data: unknown[] }).data).toEqual([]);
    fail = false;
    expect((await flaky.post("/admin-users/invite", body)).status).toBe(201);
  });
});

describe("GET /admin-users and GET /admin-users/{id}", POPULATED, () => {
  it("lists every admin user for the operator, and those sharing an organization for an admin", async () => {
    const w = await createWorld();
    expect(emails((await w.t.get("/admin-users")).body).sort()).toEqual([
      "admin-a@example.com",
      "admin-b@example.com",
      "viewer-a@example.com",
    ]);
    expect(emails((await w.t.get("/admin-users", w.keys.viewerA)).body).sort()).toEqual(["admin-a@example.com", "viewer-a@example.com"]);
    expect(emails((await w.t.get("/admin-users", w.keys.adminB)).body)).toEqual(["admin-b@example.com"]);
  });

  it("filters by status, role and organization, refusing bad values by name", async () => {
    const w = await createWorld();
    await w.t.post("/admin-users/invite", { email: "pending@example.com", role: "viewer", organizationIds: [w.orgB.id] });
    expect(emails((await w.t.get("/admin-users?status=invited")).body)).toEqual(["pending@example.com"]);
    expect(emails((await w.t.get("/admin-users?role=viewer")).body).sort()).toEqual(["pending@example.com", "viewer-a@example.com"]);
    expect(emails((await w.t.get(`/admin-users?organizationId=${w.orgB.id}`)).body).sort()).toEqual([
      "admin-b@example.com",
      "pending@example.com",
    ]);
    expect(emails((await w.t.get(`/admin-users?organizationId=${w.orgB.id}`, w.keys.adminA)).body)).toEqual([]);
    expectInvalidFields(await w.t.get("/admin-users?status=gone&role=owner&organizationId="), ["status", "role", "organizationId"]);
  });

  it("gets one in scope and answers 404 for another organization's, unknown and malformed ids", async () => {
    const w = await createWorld();
    const mine = await w.t.get(`/admin-users/${w.adminUsers.viewerA}`, w.keys.adminA);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      id: w.adminUsers.viewerA,
      email: "viewer-a@example.com",
      role: "viewer",
      organizationIds: [w.orgA.id],
      status: "active",
    });
    const foreign = expectProblem(await w.t.get(`/admin-users/${w.adminUsers.adminB}`, w.keys.adminA), 404, "not-found");
    const unknown = expectProblem(await w.t.get(`/admin-users/${UNKNOWN}`), 404, "not-found");
    expect(foreign).toEqual(unknown);
    expectProblem(await w.t.get("/admin-users/42"), 404, "not-found");
  });
});

describe("PATCH /admin-users/{id}", POPULATED, () => {
  it("changes role and organizations, and disables (its key stops working) and re-enables", async () => {
    const w = await createWorld();
    const promoted = await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { role: "admin", organizationIds: [w.orgA.id, w.orgB.id] });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ role: "admin", organizationIds: [w.orgA.id, w.orgB.id].sort() });
    expect(((await w.t.get("/organizations", w.keys.viewerA)).body as { data: unknown[] }).data).toHaveLength(2);

    const disabled = await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { status: "disabled" });
    expect((disabled.body as Json)["status"]).toBe("disabled");
    expectProblem(await w.t.get("/organizations", w.keys.viewerA), 401, "unauthorized");
    expect((await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { status: "active" })).status).toBe(200);
    expect((await w.t.get("/organizations", w.keys.viewerA)).status).toBe(200);
  });

  it("lets an admin manage admin users of its own organizations only, and give only its own", async () => {
    const w = await createWorld();
    const shared = await adminWithKey(w.t, "both@example.com", "viewer", [w.orgA.id, w.orgB.id]);
    expectProblem(await w.t.patch(`/admin-users/${w.adminUsers.adminA}`, { role: "viewer" }, w.keys.viewerA), 403, "forbidden");
    expect((await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { role: "admin" }, w.keys.adminA)).status).toBe(200);
    expectProblem(await w.t.patch(`/admin-users/${shared.id}`, { role: "admin" }, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.patch(`/admin-users/${w.adminUsers.adminB}`, { role: "viewer" }, w.keys.adminA), 404, "not-found");
    expectInvalidFields(await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { organizationIds: [w.orgB.id] }, w.keys.adminA), [
      "/organizationIds/0",
    ]);
    expect(((await w.t.get(`/admin-users/${shared.id}`)).body as Json)["role"]).toBe("viewer");
    expect(((await w.t.get(`/admin-users/${w.adminUsers.adminA}`)).body as Json)["role"]).toBe("admin");
  });

  it("refuses to change the status of an invited user (409) and invalid bodies by field", async () => {
    const w = await createWorld();
    const invited = await w.t.post("/admin-users/invite", { email: "pending@example.com", role: "viewer", organizationIds: [w.orgA.id] });
    const id = (invited.body as { id: string }).id;
    expectProblem(await w.t.patch(`/admin-users/${id}`, { status: "active" }), 409, "conflict");
    expectInvalidFields(await w.t.patch(`/admin-users/${id}`, { status: "invited" }), ["/status"]);
    expectInvalidFields(await w.t.patch(`/admin-users/${id}`, {}), [""]);
    expectInvalidFields(await w.t.patch(`/admin-users/${id}`, { role: "root", email: "x@example.com" }), ["/role", "/email"]);
    expectProblem(await w.t.patch(`/admin-users/${UNKNOWN}`, { role: "admin" }), 404, "not-found");
  });
});

describe("DELETE /admin-users/{id}", POPULATED, () => {
  it("deletes an admin user and its keys; a pending invitation is withdrawn", async () => {
    const w = await createWorld();
    expect((await w.t.delete(`/admin-users/${w.adminUsers.viewerA}`, w.keys.adminA)).status).toBe(204);
    expectProblem(await w.t.get("/organizations", w.keys.viewerA), 401, "unauthorized");
    expectProblem(await w.t.get(`/admin-users/${w.adminUsers.viewerA}`), 404, "not-found");

    await w.t.post("/admin-users/invite", { email: "pending@example.com", role: "viewer", organizationIds: [w.orgA.id] });
    const invitation = w.t.invitations.at(-1);
    expect((await w.t.delete(`/admin-users/${invitation?.adminUser.id ?? ""}`)).status).toBe(204);
    expectProblem(await w.t.post("/invitations/accept", { code: invitation?.code }, null), 404, "not-found");
    // The e-mail is free again.
    expect(
      (await w.t.post("/admin-users/invite", { email: "pending@example.com", role: "viewer", organizationIds: [w.orgA.id] })).status,
    ).toBe(201);
  });

  it("answers 403 for viewers and admins of other organizations' users, 404 out of scope or unknown", async () => {
    const w = await createWorld();
    const shared = await adminWithKey(w.t, "both@example.com", "viewer", [w.orgA.id, w.orgB.id]);
    expectProblem(await w.t.delete(`/admin-users/${w.adminUsers.adminA}`, w.keys.viewerA), 403, "forbidden");
    expectProblem(await w.t.delete(`/admin-users/${shared.id}`, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.delete(`/admin-users/${w.adminUsers.adminB}`, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.delete(`/admin-users/${UNKNOWN}`), 404, "not-found");
    expect(emails((await w.t.get("/admin-users")).body)).toHaveLength(4);
  });
});
