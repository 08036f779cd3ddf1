/**
 * A tour of the scimkit protocol core: what happens to a user that Microsoft Entra ID provisions,
 * from its POST body to the response of a later PATCH — without HTTP or storage.
 *
 * Run it with `npm start` (or `npx tsx --conditions=scimkit-source examples/protocol-core/protocol-tour.ts`).
 */
import {
  applyPatch,
  compileFilter,
  createProjection,
  createResourceValidator,
  createSchemaRegistry,
  matchesFilter,
  type ScimObject,
} from "scimkit/core";
import { specProfile } from "scimkit/core";

/** Each step of the tour, as printable text; `runProtocolTour` returns them so a test can check them. */
export interface TourStep {
  readonly title: string;
  readonly result: unknown;
}

export function runProtocolTour(): TourStep[] {
  const steps: TourStep[] = [];
  const registry = createSchemaRegistry();
  const users = registry.resourceType("User");
  if (!users) throw new Error("the default registry has a User resource type");
  const validator = createResourceValidator(users, specProfile);

  // What Entra sends on create (its documented request shape).
  const body = {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
    externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
    userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
    active: true,
    emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" }],
    meta: { resourceType: "User" },
    name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
    roles: [],
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Tour Operations", costCenter: "4130" },
  };
  const prepared = validator.prepare(body);
  if (!prepared.ok) throw prepared.error;
  const stored: ScimObject = { ...prepared.value, id: "2819c223-7f76-453a-919d-413861904646" };
  steps.push({ title: "1. POST body, validated under the spec profile (costCenter and primary are not synchronized)", result: stored });

  const missing = validator.prepare({ userName: "no-names" });
  steps.push({
    title: "2. A body without names or work e-mail: one 400, every path named",
    result: missing.ok ? missing.value : missing.error.toJSON(),
  });

  for (const text of [
    'userName eq "TEST_USER_AB6490EE-1E48-479E-A20B-2D77186B5DD1"',
    'emails[type eq "work" and value ew "@testuser.com"]',
    "title pr",
  ]) {
    const filter = compileFilter(users, text);
    steps.push({ title: `3. filter=${text}`, result: filter.ok ? matchesFilter(stored, filter.value) : filter.error.toJSON() });
  }

  // Entra deactivates with a capitalized op and a "False" string.
  const patch = {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    Operations: [
      { op: "Replace", path: "active", value: "False" },
      { op: "Add", path: 'emails[type eq "work"].value', value: "babs@example.com" },
    ],
  };
  const patched = applyPatch(users, stored, patch);
  if (!patched.ok) throw patched.error;
  const conformed = validator.conform(patched.value.resource);
  if (!conformed.ok) throw conformed.error;
  steps.push({ title: '4. Entra\'s PATCH: Replace active "False", Add the work e-mail', result: conformed.value });

  const projection = createProjection(users, { attributes: ["userName", "active", "emails.value"] });
  steps.push({ title: "5. Response with attributes=userName,active,emails.value", result: projection.apply(conformed.value) });

  const badFilter = compileFilter(users, 'userName eq "unterminated');
  steps.push({ title: "6. A malformed filter", result: badFilter.ok ? badFilter.value : badFilter.error.toJSON() });
  return steps;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const step of runProtocolTour()) {
    console.log(`\n${step.title}\n${JSON.stringify(step.result, null, 2)}`);
  }
}
