/**
 * The bounds of one PATCH (architecture §4b): operations per request, values per multi-valued attribute,
 * members named per request. At the bound the patch applies; one over, it fails with the SCIM
 * error naming the bound and the value, and the resource is untouched.
 */
import { describe, expect, it } from "vitest";
import type { ScimObject } from "../schema/normalize-value.js";
import { applyPatch, applyPatchStepwise } from "./apply-patch.js";
import { BABS, JAMES, MANDY, deepFreeze, expectOk, groups, patchBody, storedGroup, users } from "./patch.fixture.js";

function failure(result: ReturnType<typeof applyPatch>): { status: number; scimType: string | undefined; detail: string } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value.resource)}`);
  return { status: result.error.status, scimType: result.error.scimType, detail: result.error.detail };
}

function user(emailCount: number): ScimObject {
  return deepFreeze({
    userName: "bjensen",
    emails: Array.from({ length: emailCount }, (_, index) => ({ value: `e${index}@x`, type: "work" })),
  });
}

describe("maxPatchOperations", () => {
  const operations = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ op: "replace", path: "nickName", value: `n${index}` }));

  it("applies a request of exactly maxPatchOperations operations", () => {
    expect(expectOk(applyPatch(users, user(0), patchBody(...operations(3)), { maxPatchOperations: 3 })).resource["nickName"]).toBe("n2");
  });

  it("refuses one more with 413 naming the limit and the count, before applying any", () => {
    const refused = failure(applyPatch(users, user(0), patchBody(...operations(4)), { maxPatchOperations: 3 }));
    expect(refused).toEqual({
      status: 413,
      scimType: undefined,
      detail: "The PATCH request has 4 operations; the limit is 3 (maxPatchOperations).",
    });
  });
});

describe("maxValues", () => {
  it("lets an add reach maxValues, and refuses the operation that goes one over with 400 invalidValue", () => {
    expect(
      expectOk(applyPatch(users, user(2), patchBody({ op: "add", path: "emails", value: [{ value: "new@x" }] }), { maxValues: 3 }))
        .resource["emails"],
    ).toHaveLength(3);
    const refused = failure(
      applyPatch(
        users,
        user(2),
        patchBody(
          { op: "add", path: "emails", value: [{ value: "e0@x" }] },
          { op: "add", path: 'emails[value eq "f@x"].type', value: "home" },
          { op: "add", path: "emails", value: [{ value: "g@x" }] },
        ),
        { maxValues: 3 },
      ),
    );
    expect(refused).toEqual({
      status: 400,
      scimType: "invalidValue",
      detail: "Operations[2]: emails: would hold 4 values; the limit is 3 (maxValues)",
    });
  });

  it("refuses a value carrying more values than the limit before normalizing it, and a replace likewise", () => {
    const many = Array.from({ length: 4 }, (_, index) => ({ value: `v${index}@x` }));
    expect(failure(applyPatch(users, user(0), patchBody({ op: "add", path: "emails", value: many }), { maxValues: 3 })).detail).toBe(
      "Operations[0]: emails: carries 4 values; the limit is 3 (maxValues)",
    );
    expect(failure(applyPatch(users, user(0), patchBody({ op: "replace", value: { emails: many } }), { maxValues: 3 })).detail).toMatch(
      /carries 4 values; the limit is 3 \(maxValues\)/,
    );
    expect(
      expectOk(applyPatch(users, user(0), patchBody({ op: "replace", path: "emails", value: many.slice(0, 3) }), { maxValues: 3 }))
        .resource["emails"],
    ).toHaveLength(3);
  });

  it("counts values after deduplication: re-adding present values does not grow the attribute", () => {
    const again = Array.from({ length: 3 }, (_, index) => ({ value: `e${index}@x` }));
    expect(expectOk(applyPatch(users, user(3), patchBody({ op: "add", path: "emails", value: again }), { maxValues: 3 })).changed).toBe(
      false,
    );
  });

  it("still patches a resource stored over a since-lowered limit, as long as the attribute does not grow", () => {
    const patched = expectOk(
      applyPatch(
        users,
        user(5),
        patchBody(
          { op: "remove", path: 'emails[value eq "e0@x"]' },
          { op: "replace", path: 'emails[value eq "e1@x"].type', value: "home" },
        ),
        { maxValues: 3 },
      ),
    );
    expect(patched.resource["emails"]).toHaveLength(4);
  });

  it("does not count group members, which maxMembers bounds", () => {
    const body = patchBody({ op: "add", path: "members", value: [{ value: JAMES }] });
    expect(expectOk(applyPatch(groups, storedGroup(), body, { maxValues: 1 })).resource["members"]).toHaveLength(3);
  });
});

describe("maxMembers", () => {
  const ids = (count: number) => Array.from({ length: count }, (_, index) => ({ value: `m${index}` }));

  it("lets a request name exactly maxMembers members, adding and removing", () => {
    const body = patchBody({ op: "add", path: "members", value: ids(2) }, { op: "remove", path: `members[value eq "${BABS}"]` });
    expect(expectOk(applyPatch(groups, storedGroup(), body, { membersLoaded: false, maxMembers: 3 })).membership).toEqual({
      kind: "delta",
      add: ["m0", "m1"],
      remove: [BABS],
    });
  });

  it("refuses one more with 413 naming the limit and the count", () => {
    const body = patchBody(
      { op: "add", path: "members", value: ids(2) },
      { op: "remove", path: `members[value eq "${BABS}" or value eq "${MANDY}"]` },
    );
    expect(failure(applyPatch(groups, storedGroup(), body, { membersLoaded: false, maxMembers: 3 }))).toEqual({
      status: 413,
      scimType: undefined,
      detail: "Operations[1]: the request names 4 members; the limit is 3 (maxMembers).",
    });
    expect(
      failure(applyPatch(groups, storedGroup(), patchBody({ op: "replace", path: "members", value: ids(4) }), { maxMembers: 3 })).status,
    ).toBe(413);
  });
});

describe("applyPatchStepwise", () => {
  it("pauses after reading the operations and after each attribute, however many one path-less value names", () => {
    const value = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`emails[value eq "v${index}@x"].type`, "home"]));
    const steps = applyPatchStepwise(users, user(0), patchBody({ op: "add", value }, { op: "replace", path: "nickName", value: "Babs" }));
    let pauses = 0;
    for (let next = steps.next(); ; next = steps.next()) {
      if (next.done) {
        expect(expectOk(next.value).resource["emails"]).toHaveLength(50);
        break;
      }
      pauses += 1;
    }
    expect(pauses).toBe(1 + 50 + 1);
  });

  it("answers as applyPatch does", () => {
    const body = patchBody({ op: "add", path: "emails", value: [{ value: "a@x" }] }, { op: "remove", path: 'emails[value eq "e0@x"]' });
    const steps = applyPatchStepwise(users, user(2), body);
    let next = steps.next();
    while (!next.done) next = steps.next();
    expect(next.value).toEqual(applyPatch(users, user(2), body));
  });
});
