/**
 * A User resource type extended with one attribute of every SCIM type, for the filter tests:
 * the core schemas have no integer, decimal or top-level dateTime attributes.
 */
import { attribute, type SchemaDefinition } from "../schema/attribute-definition.js";
import { createSchemaRegistry, type ResourceSchema } from "../schema/schema-registry.js";

/** The URN of the filter-test extension. */
export const TEST_URN = "urn:example:params:scim:schemas:extension:filtertest:2.0:User";

/** An extension with an integer, a decimal, a case-exact string, a boolean, a dateTime, a binary, a reference, multi-valued strings and a complex attribute without `value`. */
export const filterTestSchema: SchemaDefinition = {
  id: TEST_URN,
  name: "FilterTest",
  description: "One attribute of each type, for filter tests",
  attributes: [
    attribute("level", { type: "integer" }),
    attribute("score", { type: "decimal" }),
    attribute("badge", { caseExact: true }),
    attribute("verified", { type: "boolean" }),
    attribute("hiredAt", { type: "dateTime" }),
    attribute("fingerprint", { type: "binary" }),
    attribute("homepage", { type: "reference", referenceTypes: ["external"] }),
    attribute("tags", { multiValued: true }),
    attribute("codes", { multiValued: true, caseExact: true }),
    attribute("devices", {
      type: "complex",
      multiValued: true,
      // No `value` sub-attribute: the complex attribute cannot be compared as a whole.
      subAttributes: [
        attribute("serial", { caseExact: true }),
        attribute("kind"),
        attribute("lastSeen", { type: "dateTime" }),
        attribute("trusted", { type: "boolean" }),
      ],
    }),
  ],
};

/** The User resource type with the enterprise extension and the filter-test extension. */
export const testUsers: ResourceSchema = createSchemaRegistry({
  schemas: [filterTestSchema],
  extensions: [{ resourceType: "User", schema: TEST_URN, required: false }],
}).resourceType("User")!;
