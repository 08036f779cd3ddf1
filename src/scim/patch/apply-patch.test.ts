import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, GROUP_URN, USER_URN } from "../sample-resources.fixture.js";
import { applyPatch } from "./apply-patch.js";
import { BABS, JAMES, MANDY, deepFreeze, expectOk, groups, patchBody, storedGroup, storedUser, users } from "./patch.fixture.js";

const babsRef = `https://example.com/v2/Users/${BABS}`;
const jamesRef = `https://example.com/v2/Users/${JAMES}`;

describe("RFC 7644 §3.5.2.1 add", () => {
  it("adds a member to a group (the RFC's first add example)", () => {
    const group = deepFreeze({ ...storedGroup(), members: [{ value: MANDY }] });
    const result = expectOk(
      applyPatch(groups, group, patchBody({ op: "add", path: "members", value: [{ display: "Babs Jensen", $ref: babsRef, value: BABS }] })),
    );
    // `display` of a member is readOnly in our Group schema (server-derived), so it is not stored.
    expect(result.resource["members"]).toEqual([{ value: MANDY }, { value: BABS, $ref: babsRef }]);
    expect(result.membership).toEqual({ kind: "delta", add: [BABS], remove: [] });
    expect(result.changed).toBe(true);
  });

  it('adds e-mails and a nickname from a path-less value, with the RFC\'s lowercase "nickname"', () => {
    const user = deepFreeze({
      schemas: [USER_URN],
      id: BABS,
      userName: "bjensen",
      emails: [{ value: "bjensen@example.com", type: "work" }],
    });
    const result = expectOk(
      applyPatch(users, user, patchBody({ op: "add", value: { emails: [{ value: "babs@jensen.org", type: "home" }], nickname: "Babs" } })),
    );
    expect(result.resource).toEqual({
      schemas: [USER_URN],
      id: BABS,
      userName: "bjensen",
      emails: [
        { value: "bjensen@example.com", type: "work" },
        { value: "babs@jensen.org", type: "home" },
      ],
      nickName: "Babs",
    });
    expect(result.changed).toBe(true);
  });

  it("does not add a value that is already there (RFC 7644 §3.5.2.1), so nothing changes", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody({ op: "add", value: { emails: [{ value: "babs@jensen.org", type: "home" }], nickname: "Babs" } }),
      ),
    );
    expect(result.resource["emails"]).toEqual(storedUser()["emails"]);
    expect(result.changed).toBe(false);
  });

  it("appends a new value to a multi-valued attribute", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "add", path: "emails", value: [{ value: "b@other.org", type: "other" }] })),
    );
    expect(result.resource["emails"]).toEqual([...(storedUser()["emails"] as unknown[]), { value: "b@other.org", type: "other" }]);
    expect(result.changed).toBe(true);
  });

  it("replaces a single-valued attribute and merges into a complex one", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody({ op: "add", path: "title", value: "Chief Guide" }, { op: "add", path: "name", value: { middleName: "Jane" } }),
      ),
    );
    expect(result.resource["title"]).toBe("Chief Guide");
    expect(result.resource["name"]).toEqual({ ...(storedUser()["name"] as object), middleName: "Jane" });
  });

  it("adds an attribute that had no value", () => {
    const user = deepFreeze({ schemas: [USER_URN], id: "u1", userName: "x" });
    const result = expectOk(applyPatch(users, user, patchBody({ op: "add", path: "name.givenName", value: "X" })));
    expect(result.resource).toEqual({ schemas: [USER_URN], id: "u1", userName: "x", name: { givenName: "X" } });
  });

  it("adds an extension attribute and lists the extension in schemas", () => {
    const user = deepFreeze({ schemas: [USER_URN], id: "u1", userName: "x" });
    const result = expectOk(applyPatch(users, user, patchBody({ op: "add", path: `${ENTERPRISE_URN}:department`, value: "Sales" })));
    expect(result.resource).toEqual({
      schemas: [USER_URN, ENTERPRISE_URN],
      id: "u1",
      userName: "x",
      [ENTERPRISE_URN]: { department: "Sales" },
    });
  });

  it("leaves the resource unchanged when the value is already there", () => {
    const result = expectOk(applyPatch(users, storedUser(), patchBody({ op: "add", path: "userName", value: "bjensen@example.com" })));
    expect(result.changed).toBe(false);
    expect(result.resource).toEqual(storedUser());
  });
});

describe("RFC 7644 §3.5.2.2 remove", () => {
  it("removes one member by filter", () => {
    const result = expectOk(applyPatch(groups, storedGroup(), patchBody({ op: "remove", path: `members[value eq "${BABS}"]` })));
    expect(result.resource["members"]).toEqual([{ value: MANDY, $ref: `https://example.com/v2/Users/${MANDY}`, type: "User" }]);
    expect(result.membership).toEqual({ kind: "delta", add: [], remove: [BABS] });
  });

  it("removes all members", () => {
    const result = expectOk(applyPatch(groups, storedGroup(), patchBody({ op: "remove", path: "members" })));
    expect(result.resource).not.toHaveProperty("members");
    expect(result.membership).toEqual({ kind: "replace", ids: [] });
    expect(result.changed).toBe(true);
  });

  it("removes the e-mails matching a compound filter", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "remove", path: 'emails[type eq "work" and value ew "example.com"]' })),
    );
    expect(result.resource["emails"]).toEqual([{ value: "babs@jensen.org", type: "home" }]);
  });

  it("replaces all members with a remove and an add in one request", () => {
    const result = expectOk(
      applyPatch(
        groups,
        storedGroup(),
        patchBody(
          { op: "remove", path: "members" },
          {
            op: "add",
            path: "members",
            value: [
              { display: "Babs Jensen", $ref: babsRef, value: BABS },
              { display: "James Smith", $ref: jamesRef, value: JAMES },
            ],
          },
        ),
      ),
    );
    expect(result.resource["members"]).toEqual([
      { value: BABS, $ref: babsRef },
      { value: JAMES, $ref: jamesRef },
    ]);
    expect(result.membership).toEqual({ kind: "replace", ids: [BABS, JAMES] });
  });

  it("removes one of a user's x509certificates by value, then all of them", () => {
    const user = deepFreeze({ ...storedUser(), x509Certificates: [{ value: "MIIDQzCCAqygAwIBAgICEAAw" }, { value: "MIIB" }] });
    const one = expectOk(applyPatch(users, user, patchBody({ op: "remove", path: 'x509certificates[value eq "MIIB"]' })));
    expect(one.resource["x509Certificates"]).toEqual([{ value: "MIIDQzCCAqygAwIBAgICEAAw" }]);
    const all = expectOk(applyPatch(users, user, patchBody({ op: "remove", path: "x509certificates" })));
    expect(all.resource).not.toHaveProperty("x509Certificates");
  });

  it("removes a single-valued attribute, a sub-attribute and an extension attribute", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody(
          { op: "remove", path: "title" },
          { op: "remove", path: "name.middleName" },
          { op: "remove", path: "name.formatted" },
          { op: "remove", path: `${ENTERPRISE_URN}:manager` },
        ),
      ),
    );
    expect(result.resource).not.toHaveProperty("title");
    expect(result.resource["name"]).toEqual({ familyName: "Jensen", givenName: "Barbara" });
    expect(result.resource[ENTERPRISE_URN]).not.toHaveProperty("manager");
  });

  it("drops the extension and its schema URN once its last attribute is removed", () => {
    const user = deepFreeze({ schemas: [USER_URN, ENTERPRISE_URN], id: "u1", userName: "x", [ENTERPRISE_URN]: { department: "Sales" } });
    const result = expectOk(applyPatch(users, user, patchBody({ op: "remove", path: `${ENTERPRISE_URN}:department` })));
    expect(result.resource).toEqual({ schemas: [USER_URN], id: "u1", userName: "x" });
  });

  it("removes a sub-attribute of the filtered values only", () => {
    const result = expectOk(applyPatch(users, storedUser(), patchBody({ op: "remove", path: 'emails[type eq "work"].primary' })));
    expect(result.resource["emails"]).toEqual([
      { value: "bjensen@example.com", type: "work" },
      { value: "babs@jensen.org", type: "home" },
    ]);
  });

  it("succeeds without change when the filter matches nothing or the attribute is absent (architecture §4)", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "remove", path: 'emails[type eq "other"]' }, { op: "remove", path: "ims" })),
    );
    expect(result.changed).toBe(false);
    expect(result.resource).toEqual(storedUser());
  });

  it("removes only the listed values when a remove on a multi-valued attribute carries a value", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "remove", path: "emails", value: [{ value: "babs@jensen.org" }] })),
    );
    expect(result.resource["emails"]).toEqual([{ value: "bjensen@example.com", type: "work", primary: true }]);
  });
});

describe("RFC 7644 §3.5.2.3 replace", () => {
  it("replaces all members", () => {
    const result = expectOk(
      applyPatch(
        groups,
        storedGroup(),
        patchBody({
          op: "replace",
          path: "members",
          value: [
            { display: "Babs Jensen", $ref: babsRef, value: BABS },
            { display: "James Smith", $ref: jamesRef, value: JAMES },
          ],
        }),
      ),
    );
    expect(result.resource["members"]).toEqual([
      { value: BABS, $ref: babsRef },
      { value: JAMES, $ref: jamesRef },
    ]);
    expect(result.membership).toEqual({ kind: "replace", ids: [BABS, JAMES] });
  });

  it("replaces the work address through a value filter", () => {
    const address = {
      type: "work",
      streetAddress: "911 Universal City Plaza",
      locality: "Hollywood",
      region: "CA",
      postalCode: "91608",
      country: "US",
      formatted: "911 Universal City Plaza\nHollywood, CA 91608 US",
      primary: true,
    };
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "replace", path: 'addresses[type eq "work"]', value: address })),
    );
    expect(result.resource["addresses"]).toEqual([address]);
  });

  it("replaces the street address of the work address", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody({ op: "replace", path: 'addresses[type eq "work"].streetAddress', value: "1010 Broadway Ave" }),
      ),
    );
    expect(result.resource["addresses"]).toEqual([{ type: "work", streetAddress: "1010 Broadway Ave", country: "US" }]);
  });

  it("replaces e-mails and nickname from a path-less value", () => {
    const emails = [
      { value: "bjensen@example.com", type: "work", primary: true },
      { value: "babs@jensen.org", type: "home" },
    ];
    const user = deepFreeze({ ...storedUser(), emails: [{ value: "old@example.com", type: "work" }] });
    const result = expectOk(applyPatch(users, user, patchBody({ op: "replace", value: { emails, nickname: "Babs" } })));
    expect(result.resource["emails"]).toEqual(emails);
    expect(result.resource["nickName"]).toBe("Babs");
  });

  it("merges the sub-attributes of a complex value and leaves the others (RFC 7644 §3.5.2.3)", () => {
    const result = expectOk(applyPatch(users, storedUser(), patchBody({ op: "replace", path: "name", value: { givenName: "Babs" } })));
    expect(result.resource["name"]).toEqual({ formatted: "Ms. Barbara J Jensen III", familyName: "Jensen", givenName: "Babs" });
  });

  it("treats a replace of an absent attribute as an add", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "replace", path: "profileUrl", value: "https://login.example.com/bjensen" })),
    );
    expect(result.resource["profileUrl"]).toBe("https://login.example.com/bjensen");
  });

  it("unassigns an attribute replaced with null (RFC 7643 §2.5)", () => {
    const result = expectOk(applyPatch(users, storedUser(), patchBody({ op: "replace", path: "nickName", value: null })));
    expect(result.resource).not.toHaveProperty("nickName");
  });
});

describe("primary values (RFC 7644 §3.5.2)", () => {
  it("clears primary on the other values when one is made primary", () => {
    const result = expectOk(
      applyPatch(users, storedUser(), patchBody({ op: "replace", path: 'emails[type eq "home"].primary', value: true })),
    );
    expect(result.resource["emails"]).toEqual([
      { value: "bjensen@example.com", type: "work", primary: false },
      { value: "babs@jensen.org", type: "home", primary: true },
    ]);
  });

  it("clears primary on existing values when a primary value is added", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody({ op: "add", path: "emails", value: [{ value: "new@example.com", type: "other", primary: true }] }),
      ),
    );
    const emails = result.resource["emails"] as { primary?: boolean }[];
    expect(emails.map((email) => email.primary)).toEqual([false, undefined, true]);
  });
});

describe("result bookkeeping", () => {
  it("recomputes schemas and never changes the input", () => {
    const user = deepFreeze({ ...storedUser(), schemas: ["urn:ietf:params:scim:schemas:core:2.0:user"] });
    const body = patchBody({ op: "replace", path: "displayName", value: "Babs" });
    const snapshot = structuredClone({ user, body });
    const result = expectOk(applyPatch(users, user, body));
    expect(result.resource["schemas"]).toEqual([USER_URN, ENTERPRISE_URN]);
    expect({ user, body }).toEqual(snapshot);
  });

  it("reports no change for a patch that restores the original value", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody({ op: "replace", path: "title", value: "Boss" }, { op: "replace", path: "title", value: "Tour Guide" }),
      ),
    );
    expect(result.changed).toBe(false);
    expect(result.membership).toBeUndefined();
  });

  it("applies operations in order, each to the result of the previous one", () => {
    const result = expectOk(
      applyPatch(
        users,
        storedUser(),
        patchBody(
          { op: "remove", path: "emails" },
          { op: "add", path: "emails", value: { value: "only@example.com", type: "work" } },
          { op: "replace", path: 'emails[type eq "work"].value', value: "final@example.com" },
        ),
      ),
    );
    expect(result.resource["emails"]).toEqual([{ value: "final@example.com", type: "work" }]);
  });

  it("reports the delta but no change when an added member is already there (RFC 7644 §3.5.2.1)", () => {
    const result = expectOk(
      applyPatch(groups, storedGroup(), patchBody({ op: "add", path: "members", value: [{ value: BABS, type: "User" }] })),
    );
    expect(result.changed).toBe(false);
    expect(result.resource["members"]).toEqual(storedGroup()["members"]);
    expect(result.membership).toEqual({ kind: "delta", add: [BABS], remove: [] });
  });

  it("counts a membership delta as a change when members are not loaded", () => {
    const { members: _members, ...group } = storedGroup();
    const result = expectOk(
      applyPatch(groups, deepFreeze(group), patchBody({ op: "add", path: "members", value: [{ value: BABS }] }), { membersLoaded: false }),
    );
    expect(result.changed).toBe(true);
    expect(result.resource).toEqual(group);
    const none = expectOk(
      applyPatch(groups, deepFreeze(group), patchBody({ op: "replace", path: "displayName", value: "Tour Guides" }), {
        membersLoaded: false,
      }),
    );
    expect(none.changed).toBe(false);
    expect(none.membership).toBeUndefined();
  });

  it("tells attribute changes from membership changes, judged on the conformed resource", () => {
    const { members: _members, ...group } = storedGroup();
    const both = expectOk(
      applyPatch(
        groups,
        deepFreeze(group),
        patchBody({ op: "add", path: "members", value: [{ value: BABS }] }, { op: "replace", path: "displayName", value: "Guides" }),
        { membersLoaded: false },
      ),
    );
    expect([both.changed, both.attributesChanged]).toEqual([true, true]);
    const membersOnly = expectOk(
      applyPatch(groups, deepFreeze(group), patchBody({ op: "add", path: "members", value: [{ value: BABS }] }), { membersLoaded: false }),
    );
    expect([membersOnly.changed, membersOnly.attributesChanged]).toEqual([true, false]);
    // What `conform` drops (here the new nickName, as a profile that does not keep it would) is no change.
    const dropNickName = (resource: Record<string, unknown>) => {
      const { nickName: _nickName, ...kept } = resource;
      return { ok: true as const, value: kept };
    };
    const user = deepFreeze({ schemas: [USER_URN], id: BABS, userName: "bjensen" });
    const dropped = expectOk(
      applyPatch(users, user, patchBody({ op: "replace", path: "nickName", value: "B" }), { conform: dropNickName }),
    );
    expect([dropped.changed, dropped.attributesChanged]).toEqual([false, false]);
    expect(dropped.resource["nickName"]).toBeUndefined();
  });

  it("keeps the group's other attributes when only members change", () => {
    const result = expectOk(applyPatch(groups, storedGroup(), patchBody({ op: "add", path: "members", value: [{ value: JAMES }] })));
    expect(result.resource).toMatchObject({ schemas: [GROUP_URN], displayName: "Tour Guides", id: storedGroup()["id"] });
    expect((result.resource["members"] as unknown[]).length).toBe(3);
  });
});
