/** The bodies organization A sends: valid SCIM of the sizes the issue names, under the host's body limit. */
import { describe, expect, it } from "vitest";
import { manyEmailValue, PATHOLOGY, pathologicalLists, replaceEmailTypesBody, reverseChainBulkBody } from "./pathological-requests.js";

describe("pathological request bodies", () => {
  it("a 12,000-operation PATCH over 10,000 e-mails stays under the host's 1 MiB body limit and never touches the work e-mail", () => {
    const body = replaceEmailTypesBody(PATHOLOGY.manyEmails, PATHOLOGY.patchOperations, "home");
    const operations = body["Operations"] as { path: string }[];
    expect(operations).toHaveLength(12_000);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(1_048_576);
    expect(operations.some((operation) => operation.path.includes(`"${manyEmailValue(0)}"`))).toBe(false);
    expect(operations[0]?.path).toBe(`emails[value eq "${manyEmailValue(1)}"].type`);
  });

  it("a reverse chain: operation k references k+1's bulkId, the last one nothing", () => {
    const operations = reverseChainBulkBody(3, "r")["Operations"] as { bulkId: string; data: Record<string, unknown> }[];
    const manager = (k: number): unknown =>
      (operations[k]?.data["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"] as { manager?: { value: string } } | undefined)
        ?.manager?.value;
    expect(operations.map((operation) => operation.bulkId)).toEqual(["r-0", "r-1", "r-2"]);
    expect([manager(0), manager(1), manager(2)]).toEqual(["bulkId:r-1", "bulkId:r-2", undefined]);
  });

  it("the sorted deep page starts at 40,000 from 50,000 users, at 80% below", () => {
    expect(pathologicalLists(50_000)[2]?.query).toBe("sortBy=name.familyName&startIndex=40000");
    expect(pathologicalLists(5_000)[2]?.query).toBe("sortBy=name.familyName&startIndex=4000");
  });
});
