/**
 * The attributes every resource carries besides those of its schemas (RFC 7643 §3 and §3.1). They
 * belong to no schema's attribute list: the registry appends them to each core schema.
 */
import { attribute, type AttributeDefinition } from "./attribute-definition.js";

/** `schemas`, `id`, `externalId` and `meta`, with the characteristics RFC 7643 §3 and §3.1 give them. */
export const commonAttributes: readonly AttributeDefinition[] = [
  attribute("schemas", {
    type: "reference",
    referenceTypes: ["uri"],
    multiValued: true,
    // §3: "a REQUIRED attribute"; every representation MUST include a non-empty array.
    required: true,
    // §2.3.7: a reference is case exact, and schema URIs are references.
    caseExact: true,
    // §3 gives no mutability. Clients MUST send it (RFC 7644 §3.3) and may add an extension's URN
    // on PUT or PATCH, so neither readOnly (ignored on input) nor immutable fits: readWrite.
    mutability: "readWrite",
    // A representation without `schemas` cannot be interpreted, so no projection may remove it.
    returned: "always",
    description:
      "The URIs of the schemas that define the attributes present in the current JSON structure: the resource " +
      "type's core schema and each extension the resource carries.",
  }),
  attribute("id", {
    description:
      "A unique identifier for a SCIM resource as defined by the service provider. It is stable, never reassigned, " +
      "always issued by the service provider and MUST NOT be specified by the client.",
    // §3.1: every representation MUST include a non-empty id; readOnly keeps clients from being asked for it.
    required: true,
    caseExact: true,
    mutability: "readOnly",
    returned: "always",
    // §3.1: unique across the service provider's entire set of resources.
    uniqueness: "server",
  }),
  attribute("externalId", {
    description:
      "An identifier for the resource as defined by the provisioning client, scoped to the provisioning domain. " +
      "The server does not enforce its uniqueness; the client that sets it controls that.",
    caseExact: true,
  }),
  attribute("meta", {
    type: "complex",
    // §3.1: assigned by the service provider and ignored when provided by clients.
    mutability: "readOnly",
    description: "A complex attribute containing resource metadata.",
    subAttributes: [
      attribute("resourceType", {
        caseExact: true,
        mutability: "readOnly",
        description: "The name of the resource type of the resource.",
      }),
      attribute("created", {
        type: "dateTime",
        mutability: "readOnly",
        description: "The DateTime that the resource was added to the service provider.",
      }),
      attribute("lastModified", {
        type: "dateTime",
        mutability: "readOnly",
        description:
          "The most recent DateTime that the details of this resource were updated at the service provider; equal " +
          "to created if the resource was never modified.",
      }),
      attribute("location", {
        type: "reference",
        referenceTypes: ["uri"],
        // §2.3.7: a reference is case exact.
        caseExact: true,
        mutability: "readOnly",
        description: "The URI of the resource being returned; the same as the Content-Location response header.",
      }),
      attribute("version", {
        // §3.1: it mirrors the ETag, whose comparison is octet by octet (RFC 7232 §2.3.2).
        caseExact: true,
        mutability: "readOnly",
        description: "The version of the resource being returned; the same as the ETag response header.",
      }),
    ],
  }),
];
