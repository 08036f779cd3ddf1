/**
 * Compatibility profiles through the router (docs/compatibility-profiles.md, architecture §4): every
 * row of the profile table, for every built-in profile. A tolerance a profile has accepts the
 * provider's shape; one it lacks answers as RFC 7643/7644 say, with the status, `scimType` and a
 * detail naming what was refused. Then the response choices, and how a profile is chosen.
 */
import { describe, expect, it } from "vitest";
import { COMPATIBILITY_PROFILE_NAMES, type CompatibilityProfileName } from "../../src/scim/compatibility/compatibility-profile-name.js";
import type { CompatibilityProfile, Tolerances } from "../../src/scim/compatibility/compatibility-profile.js";
import { COMPATIBILITY_PROFILES } from "../../src/scim/compatibility/compatibility-profiles.js";
import {
  ENTERPRISE_SCHEMA,
  GROUP_SCHEMA,
  PATCH_SCHEMA,
  USER_SCHEMA,
  createTestApp,
  expectScimError,
  userBody,
  type TestApp,
} from "./harness.js";
import { BULK_REQUEST_SCHEMA, createGroup, createUser, memberIdsOf, patchBody, type Json } from "./provisioning-helpers.js";
import type request from "supertest";

const SCIM_1_URN = "urn:scim:schemas:core:1.0";

/** One behaviour a tolerance switches: a request, what it gets with the tolerance, and without. */
interface ToleranceRow {
  readonly tolerance: keyof Tolerances;
  readonly behaviour: string;
  /** Sends the request (after whatever set-up it needs) and returns the response with what it made. */
  readonly send: (t: TestApp) => Promise<{ readonly response: request.Response; readonly made: Json }>;
  /** Asserts the answer of a profile that has the tolerance. */
  readonly accepted: (response: request.Response, made: Json, t: TestApp) => Promise<void> | void;
  /** The answer of a profile that lacks it. */
  readonly refused: { readonly status: number; readonly scimType: string; readonly detail: RegExp };
}

async function userPatch(t: TestApp, operations: Json[], extra: Record<string, unknown> = {}, body?: Json) {
  const made = await createUser(t, "babs", extra);
  const response = await t.patch(`/Users/${String(made["id"])}`, body ?? patchBody(...operations));
  return { response, made };
}

/** A group of two users; the PATCH asks for no members back, so its answer is 200 under every profile. */
async function groupPatch(t: TestApp, operation: (members: readonly string[]) => Json) {
  const ids = [String((await createUser(t, "alice"))["id"]), String((await createUser(t, "bob"))["id"])];
  const group = await createGroup(t, "Engineering", ids);
  const response = await t.patch(`/Groups/${String(group["id"])}?excludedAttributes=members`, patchBody(operation(ids)));
  return { response, made: { ...group, memberIds: ids } };
}

async function readBack(t: TestApp, made: Json, endpoint = "Users"): Promise<Json> {
  const response = await t.get(`/${endpoint}/${String(made["id"])}`);
  expect(response.status).toBe(200);
  return response.body as Json;
}

const ROWS: readonly ToleranceRow[] = [
  {
    tolerance: "anyCaseOps",
    behaviour: 'PATCH op "Replace"',
    send: (t) => userPatch(t, [{ op: "Replace", path: "displayName", value: "Babs J" }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.displayName).toBe("Babs J");
    },
    refused: { status: 400, scimType: "invalidSyntax", detail: /Operations\[0\]\.op .*lower case.*"Replace"/ },
  },
  {
    tolerance: "stringBooleans",
    behaviour: 'PATCH value "False" for active',
    send: (t) => userPatch(t, [{ op: "replace", path: "active", value: "False" }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.active).toBe(false);
    },
    refused: { status: 400, scimType: "invalidValue", detail: /active: expected a boolean, got "False"/ },
  },
  {
    tolerance: "stringBooleans",
    behaviour: 'POST body active "True"',
    send: async (t) => ({ response: await t.post("/Users", userBody("babs", { active: "True" })), made: {} }),
    accepted: (response) => {
      expect(response.status).toBe(201);
      expect(response.body.active).toBe(true);
    },
    refused: { status: 400, scimType: "invalidValue", detail: /active: expected a boolean, got "True"/ },
  },
  {
    tolerance: "stringBooleans",
    behaviour: 'filter active eq "True"',
    send: async (t) => {
      const made = await createUser(t, "babs");
      return { response: await t.get(`/Users?filter=${encodeURIComponent('active eq "True"')}`), made };
    },
    accepted: (response, made) => {
      expect(response.status).toBe(200);
      expect(response.body.totalResults).toBe(1);
      expect(response.body.Resources[0].id).toBe(made["id"]);
    },
    refused: { status: 400, scimType: "invalidFilter", detail: /"active" is a boolean attribute.*the string "True"/ },
  },
  {
    tolerance: "removeByValue",
    behaviour: 'remove path "members" with a value array',
    send: (t) => groupPatch(t, ([alice]) => ({ op: "remove", path: "members", value: [{ value: alice }] })),
    accepted: async (response, made, t) => {
      expect(response.status).toBe(200);
      const [, bob] = made["memberIds"] as string[];
      expect(memberIdsOf(await readBack(t, made, "Groups"))).toEqual([bob]);
    },
    refused: { status: 400, scimType: "invalidSyntax", detail: /"remove" on "members" carries a "value".*members\[value eq/ },
  },
  {
    tolerance: "bareStringComplex",
    behaviour: "manager as a bare string",
    send: (t) => userPatch(t, [{ op: "add", path: `${ENTERPRISE_SCHEMA}:manager`, value: "manager-id" }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body[ENTERPRISE_SCHEMA]).toEqual({ manager: { value: "manager-id" } });
    },
    refused: { status: 400, scimType: "invalidValue", detail: /manager: expected an object, got "manager-id"/ },
  },
  {
    tolerance: "arrayOfOne",
    behaviour: "manager as an array of one",
    send: (t) => userPatch(t, [{ op: "add", path: `${ENTERPRISE_SCHEMA}:manager`, value: [{ value: "manager-id" }] }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body[ENTERPRISE_SCHEMA]).toEqual({ manager: { value: "manager-id" } });
    },
    refused: { status: 400, scimType: "invalidValue", detail: /manager: expected an object, got an array/ },
  },
  {
    tolerance: "pathKeys",
    behaviour: 'path-less replace with the dotted key "name.givenName"',
    send: (t) => userPatch(t, [{ op: "replace", value: { "name.givenName": "Barbara" } }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.name.givenName).toBe("Barbara");
    },
    refused: { status: 400, scimType: "invalidValue", detail: /name\.givenName: is an attribute path, not an attribute name/ },
  },
  {
    tolerance: "pathKeys",
    behaviour: "POST body with a URN-qualified key",
    send: async (t) => ({
      response: await t.post("/Users", userBody("babs", { [`${ENTERPRISE_SCHEMA}:department`]: "Tour Operations" })),
      made: {},
    }),
    accepted: (response) => {
      expect(response.status).toBe(201);
      expect(response.body[ENTERPRISE_SCHEMA]).toEqual({ department: "Tour Operations" });
    },
    refused: { status: 400, scimType: "invalidValue", detail: /enterprise:2\.0:User:department: is an attribute path/ },
  },
  {
    tolerance: "createOnNoMatch",
    behaviour: 'replace emails[type eq "home"].value on a user without one',
    send: (t) => userPatch(t, [{ op: "replace", path: 'emails[type eq "home"].value', value: "babs@home.example" }]),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.emails).toContainEqual({ type: "home", value: "babs@home.example" });
    },
    refused: { status: 400, scimType: "noTarget", detail: /no value of "emails" matches "emails\[type eq "home"\]\.value"/ },
  },
  {
    tolerance: "removeAbsent",
    behaviour: "remove with a filter that matches nothing",
    send: (t) => userPatch(t, [{ op: "remove", path: 'emails[type eq "home"]' }]),
    accepted: (response, made) => {
      expect(response.status).toBe(200);
      expect(response.body.emails).toEqual(made["emails"]);
    },
    refused: { status: 400, scimType: "noTarget", detail: /"emails\[type eq "home"\]" matches no value to remove/ },
  },
  {
    tolerance: "foreignSchemaUrns",
    behaviour: "POST with Google's SCIM 1.0 URN in schemas",
    send: async (t) => ({ response: await t.post("/Users", userBody("babs", { schemas: [USER_SCHEMA, SCIM_1_URN] })), made: {} }),
    accepted: (response) => {
      expect(response.status).toBe(201);
      expect(response.body.schemas).toEqual([USER_SCHEMA]);
    },
    refused: { status: 400, scimType: "invalidSyntax", detail: /"schemas" lists "urn:scim:schemas:core:1\.0"/ },
  },
  {
    tolerance: "foreignSchemaUrns",
    behaviour: "PatchOp schemas with an extra URN",
    send: (t) =>
      userPatch(t, [], {}, { schemas: [PATCH_SCHEMA, SCIM_1_URN], Operations: [{ op: "replace", path: "title", value: "Guide" }] }),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.title).toBe("Guide");
    },
    refused: { status: 400, scimType: "invalidSyntax", detail: /also lists "urn:scim:schemas:core:1\.0"/ },
  },
  {
    tolerance: "missingSchemas",
    behaviour: "PATCH without schemas",
    send: (t) => userPatch(t, [], {}, { Operations: [{ op: "replace", path: "title", value: "Guide" }] }),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.body.title).toBe("Guide");
    },
    refused: { status: 400, scimType: "invalidSyntax", detail: /must carry "schemas"/ },
  },
  {
    tolerance: "missingSchemas",
    behaviour: "POST without schemas",
    send: async (t) => {
      const { schemas: _schemas, ...body } = userBody("babs");
      return { response: await t.post("/Users", body), made: {} };
    },
    accepted: (response) => {
      expect(response.status).toBe(201);
      expect(response.body.schemas).toEqual([USER_SCHEMA]);
    },
    refused: {
      status: 400,
      scimType: "invalidSyntax",
      detail: /must carry "schemas" listing "urn:ietf:params:scim:schemas:core:2\.0:User"/,
    },
  },
];

describe.each(COMPATIBILITY_PROFILE_NAMES.map((name) => [name]))("the %s profile", (name: CompatibilityProfileName) => {
  const profile = COMPATIBILITY_PROFILES[name];

  describe.each(ROWS.map((row) => [`${row.tolerance}: ${row.behaviour}`, row] as const))("%s", (_title, row) => {
    const has = profile.tolerances[row.tolerance];
    it(has ? "is accepted" : `is refused with ${row.refused.status} ${row.refused.scimType}`, async () => {
      const t = await createTestApp({ compatibility: name });
      const { response, made } = await row.send(t);
      if (has) {
        await row.accepted(response, made, t);
      } else {
        const { detail } = expectScimError(response, row.refused.status, row.refused.scimType);
        expect(detail).toMatch(row.refused.detail);
      }
    });
  });

  it(`group PATCH answers ${profile.responses.groupPatch === "resource" ? "200 with the group" : "204 without a body"}`, async () => {
    const t = await createTestApp({ compatibility: name });
    const alice = String((await createUser(t, "alice"))["id"]);
    const group = await createGroup(t, "Engineering", [alice]);
    const response = await t.patch(`/Groups/${String(group["id"])}`, patchBody({ op: "replace", path: "displayName", value: "Eng" }));
    expect(response.headers["etag"]).toMatch(/^W\/".+"$/);
    if (profile.responses.groupPatch === "resource") {
      expect(response.status).toBe(200);
      expect(response.body.displayName).toBe("Eng");
      expect(memberIdsOf(response.body as Json)).toEqual([alice]);
      expect(response.headers["etag"]).toBe(response.body.meta.version);
    } else {
      expect(response.status).toBe(204);
      expect(response.text).toBe("");
    }
  });

  it(`a group whose members were all removed ${profile.responses.emptyMultiValued === "omit" ? "has no members attribute" : 'renders "members": []'}`, async () => {
    const t = await createTestApp({ compatibility: name });
    const alice = String((await createUser(t, "alice"))["id"]);
    const group = await createGroup(t, "Engineering", [alice]);
    const id = String(group["id"]);
    const patched = await t.patch(`/Groups/${id}?attributes=displayName,members`, patchBody({ op: "remove", path: "members" }));
    expect(patched.status).toBe(200);
    const read = await t.get(`/Groups/${id}`);
    const listed = await t.get(`/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`);
    for (const body of [patched.body, read.body, listed.body.Resources[0]] as Json[]) {
      expect(body["displayName"]).toBe("Engineering");
      if (profile.responses.emptyMultiValued === "omit") expect(body).not.toHaveProperty("members");
      else expect(body["members"]).toEqual([]);
    }
  });

  it(`/ServiceProviderConfig ${profile.responses.advertisePagination ? "advertises" : "leaves out"} the RFC 9865 pagination block`, async () => {
    const t = await createTestApp({ compatibility: name });
    const response = await t.get("/ServiceProviderConfig");
    expect(response.status).toBe(200);
    if (profile.responses.advertisePagination) {
      expect(response.body.pagination).toMatchObject({ index: true, defaultPaginationMethod: "index" });
    } else {
      expect(response.body).not.toHaveProperty("pagination");
      expect(response.body.filter).toMatchObject({ supported: true });
    }
  });
});

describe("choosing a profile", () => {
  it("removing an unassigned attribute succeeds under every profile (RFC 7644 §3.5.2.2), strict included", async () => {
    for (const name of COMPATIBILITY_PROFILE_NAMES) {
      const t = await createTestApp({ compatibility: name });
      const { response } = await userPatch(t, [
        { op: "remove", path: "title" },
        { op: "remove", path: "name.middleName" },
      ]);
      expect(response.status, name).toBe(200);
      expect(response.body).not.toHaveProperty("title");
      expect(response.body.name).toEqual({ givenName: "Given", familyName: "Family babs" });
    }
  });

  it("defaults to generic: every tolerance, 204 for a group PATCH, pagination advertised", async () => {
    const t = await createTestApp();
    const { response } = await userPatch(t, [{ op: "Replace", path: "active", value: "False" }]);
    expect(response.status).toBe(200);
    expect(response.body.active).toBe(false);
    expect((await t.get("/ServiceProviderConfig")).body).toHaveProperty("pagination");
  });

  it("a function of the organization chooses per organization, asked once per request, and may be async", async () => {
    const asked: string[] = [];
    const t = await createTestApp({
      compatibility: async (orgId) => {
        asked.push(orgId);
        return orgId === "acme" ? "strict" : "entra";
      },
    });
    const body = patchBody({ op: "Replace", path: "title", value: "Guide" });
    const acme = await createUser(t, "babs");
    expectScimError(await t.patch(`/Users/${String(acme["id"])}`, body), 400, "invalidSyntax");
    const globex = await t.post(`${t.base("globex")}/Users`, userBody("babs"), t.token.globex);
    expect(globex.status).toBe(201);
    const patched = await t.patch(`${t.base("globex")}/Users/${String(globex.body.id)}`, body, t.token.globex);
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe("Guide");
    expect(asked).toEqual(["acme", "acme", "globex", "globex"]);
    // Without a valid token the function is never asked; /ServiceProviderConfig needs none.
    expect((await t.get("/Users", "not-a-token")).status).toBe(401);
    expect(asked).toHaveLength(4);
    expect((await t.get("/ServiceProviderConfig", "not-a-token")).body).not.toHaveProperty("pagination");
    expect(asked).toEqual(["acme", "acme", "globex", "globex", "acme"]);
  });

  it("takes a profile object of the host's own: generic with one switch off", async () => {
    const own: CompatibilityProfile = {
      ...COMPATIBILITY_PROFILES.generic,
      name: "generic-but-createOnNoMatch",
      tolerances: { ...COMPATIBILITY_PROFILES.generic.tolerances, createOnNoMatch: false },
      responses: { ...COMPATIBILITY_PROFILES.generic.responses, emptyMultiValued: "keep" },
    };
    const t = await createTestApp({ compatibility: own });
    const { response } = await userPatch(t, [{ op: "Replace", path: 'emails[type eq "home"].value', value: "x@home.example" }]);
    expectScimError(response, 400, "noTarget");
    const group = await createGroup(t, "Empty");
    expect((await t.get(`/Groups/${String(group["id"])}`)).body.members).toEqual([]);
  });

  it("refuses an unknown name when the router is built, naming the valid names", async () => {
    await expect(createTestApp({ compatibility: "azure" as CompatibilityProfileName })).rejects.toThrow(
      new TypeError(
        'scimkit: compatibility: no compatibility profile is named "azure"; the names are "generic", "strict", "entra", "okta", "google", "onelogin", "jumpcloud", "ping".',
      ),
    );
  });

  it("answers 500 and tells onError when the function names no profile", async () => {
    const t = await createTestApp({ compatibility: () => "azure" as CompatibilityProfileName });
    const response = await t.get("/Users");
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain("azure");
    expect(t.errors).toHaveLength(1);
    expect(String(t.errors[0])).toContain('the compatibility function for organization "acme": no compatibility profile is named "azure"');
  });

  it("applies to /Bulk operations", async () => {
    const t = await createTestApp({ compatibility: "strict" });
    const made = await createUser(t, "babs");
    const response = await t.post("/Bulk", {
      schemas: [BULK_REQUEST_SCHEMA],
      Operations: [
        { method: "PATCH", path: `/Users/${String(made["id"])}`, data: patchBody({ op: "Replace", path: "title", value: "Guide" }) },
        { method: "POST", path: "/Users", bulkId: "b1", data: userBody("carla", { active: "True" }) },
        { method: "POST", path: "/Groups", bulkId: "g1", data: { schemas: [GROUP_SCHEMA], displayName: "Tours" } },
      ],
    });
    expect(response.status).toBe(200);
    const [patch, user, group] = response.body.Operations as Json[];
    expect(patch?.["status"]).toBe("400");
    expect(patch?.["response"]).toMatchObject({ scimType: "invalidSyntax" });
    expect(user?.["status"]).toBe("400");
    expect(user?.["response"]).toMatchObject({ scimType: "invalidValue" });
    expect(user?.["response"].detail).toContain('expected a boolean, got "True"');
    expect(group?.["status"]).toBe("201");
  });
});
