/**
 * The core Group schema, `urn:ietf:params:scim:schemas:core:2.0:Group` (RFC 7643 §4.2), transcribed
 * from its JSON representation in RFC 7643 §8.7.1, with the two departures noted inline.
 */
import { attribute, type SchemaDefinition } from "./attribute-definition.js";

/** The core Group schema of RFC 7643 §4.2 and §8.7.1. */
export const coreGroupSchema: SchemaDefinition = {
  id: "urn:ietf:params:scim:schemas:core:2.0:Group",
  name: "Group",
  description: "Group",
  attributes: [
    attribute("displayName", {
      description: "A human-readable name for the Group. REQUIRED.",
      // §4.2 says REQUIRED (as does §8.7.1's own description); §8.7.1's `"required": false` is the slip.
      required: true,
      // The provisioning spec §2.4 makes the display name "the unique name of the group", so the
      // service enforces it (case-insensitively, as displayName is caseExact false) and says so here.
      uniqueness: "server",
    }),
    attribute("members", {
      type: "complex",
      multiValued: true,
      description: "A list of members of the Group.",
      // §4.2: values may be added or removed, but each member's sub-attributes are immutable.
      subAttributes: [
        attribute("value", { mutability: "immutable", description: "Identifier of the member of this Group." }),
        attribute("$ref", {
          type: "reference",
          // Group among the targets is how §4.2 allows nested groups.
          referenceTypes: ["User", "Group"],
          // §8.7.1 says caseExact false, but §2.3.7 states "A reference is case exact" (erratum 6001, reported).
          caseExact: true,
          mutability: "immutable",
          description: "The URI corresponding to a SCIM resource that is a member of this Group.",
        }),
        // §8.7.1 omits `display`, yet the §8.4 Group example and RFC 7644 §3.5.2 PATCH examples carry it
        // and §2.4 lists it among the default sub-attributes of a multi-valued attribute. It is readOnly
        // rather than §2.4's immutable because the server derives it from the member resource: a name
        // sent by a client may be stale or wrong, so it is ignored (RFC 7643 §7).
        attribute("display", {
          mutability: "readOnly",
          description: "A human-readable name, primarily used for display purposes. READ-ONLY.",
        }),
        attribute("type", {
          mutability: "immutable",
          canonicalValues: ["User", "Group"],
          description: "A label indicating the type of resource, e.g., 'User' or 'Group'.",
        }),
      ],
    }),
  ],
};
