import { describe, expect, it } from "vitest";
import { runProtocolTour } from "../examples/protocol-core/protocol-tour.js";

describe("the protocol-core tour (npm start)", () => {
  const steps = runProtocolTour();
  const result = (index: number): unknown => steps[index]?.result;

  it("stores only the synchronized attributes of Entra's create body", () => {
    const stored = result(0) as Record<string, unknown>;
    expect(stored["emails"]).toEqual([{ type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" }]);
    expect(stored["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"]).toEqual({ department: "Tour Operations" });
    expect(stored).not.toHaveProperty("meta");
  });

  it("names every missing path in one invalidValue error", () => {
    expect(result(1)).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect((result(1) as { detail: string }).detail).toContain('emails[type eq "work"].value: is required');
  });

  it("evaluates filters case-insensitively on userName, per element in value filters", () => {
    expect([result(2), result(3), result(4)]).toEqual([true, true, false]);
  });

  it("applies Entra's capitalized PATCH with a string boolean", () => {
    const patched = result(5) as Record<string, unknown>;
    expect(patched["active"]).toBe(false);
    expect(patched["emails"]).toEqual([{ type: "work", value: "babs@example.com" }]);
  });

  it("projects the response and reports malformed filters as invalidFilter", () => {
    expect(result(6)).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      id: "2819c223-7f76-453a-919d-413861904646",
      userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
      active: false,
      emails: [{ value: "babs@example.com" }],
    });
    expect(result(7)).toMatchObject({ status: "400", scimType: "invalidFilter" });
  });
});
