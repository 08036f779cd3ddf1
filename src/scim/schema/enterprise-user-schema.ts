/**
 * The Enterprise User extension, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`
 * (RFC 7643 §4.3), transcribed from its JSON representation in RFC 7643 §8.7.1.
 */
import { attribute, type SchemaDefinition } from "./attribute-definition.js";

/** The Enterprise User extension schema of RFC 7643 §4.3 and §8.7.1. */
export const enterpriseUserSchema: SchemaDefinition = {
  id: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
  name: "EnterpriseUser",
  description: "Enterprise User",
  attributes: [
    attribute("employeeNumber", {
      description:
        "Numeric or alphanumeric identifier assigned to a person, typically based on order of hire or association " +
        "with an organization.",
    }),
    attribute("costCenter", { description: "Identifies the name of a cost center." }),
    attribute("organization", { description: "Identifies the name of an organization." }),
    attribute("division", { description: "Identifies the name of a division." }),
    attribute("department", { description: "Identifies the name of a department." }),
    attribute("manager", {
      type: "complex",
      description:
        "The User's manager. A complex type that optionally allows service providers to represent organizational " +
        "hierarchy by referencing the 'id' attribute of another User.",
      // §8.7.1's descriptions say REQUIRED, but its characteristics say `"required": false` and §4.3
      // calls value and $ref RECOMMENDED, so a manager without them is still accepted.
      subAttributes: [
        attribute("value", { description: "The id of the SCIM resource representing the User's manager. REQUIRED." }),
        attribute("$ref", {
          type: "reference",
          referenceTypes: ["User"],
          // §8.7.1 says caseExact false, but §2.3.7 states "A reference is case exact" (erratum 6001, reported).
          caseExact: true,
          description: "The URI of the SCIM resource representing the User's manager. REQUIRED.",
        }),
        attribute("displayName", {
          // §4.3: OPTIONAL with mutability readOnly, so a client's copy is ignored (RFC 7643 §7).
          mutability: "readOnly",
          description: "The displayName of the User's manager. OPTIONAL and READ-ONLY.",
        }),
      ],
    }),
  ],
};
