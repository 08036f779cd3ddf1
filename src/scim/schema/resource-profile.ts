/**
 * A profile says which attributes a deployment requires and which it keeps. The router applies
 * one profile to every write; the host server defaults to `specProfile`, and integrators who want
 * plain RFC 7643 behaviour choose `rfc7643Profile`.
 */

/** Which attributes must be present and which are kept, per resource type id (`User`, `Group`). */
export interface ResourceProfile {
  /** A name for documentation and logs. */
  readonly name: string;
  /**
   * Paths that must hold a value, in PATCH path syntax so that one element of a multi-valued
   * attribute can be required (`emails[type eq "work"].value`). Checked in addition to the
   * `required` characteristic of the schemas.
   */
  readonly required?: Readonly<Record<string, readonly string[]>>;
  /**
   * The only attribute paths kept (`name.givenName`, `emails.type`, URN-qualified for extensions);
   * everything else is accepted and dropped. Naming a complex attribute keeps all its
   * sub-attributes. `id`, `externalId`, `meta` and `schemas` are always kept. Absent for a resource
   * type: every attribute its schemas define is kept.
   */
  readonly synchronized?: Readonly<Record<string, readonly string[]>>;
}

/** Plain RFC 7643: the schemas' own `required` characteristics, every defined attribute kept. */
export const rfc7643Profile: ResourceProfile = { name: "rfc7643" };

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/**
 * The product spec's profile (spec §2.3, §2.4): a user needs `userName`, both names and a work
 * e-mail; only the listed attributes are synchronized, the rest accepted and dropped.
 */
export const specProfile: ResourceProfile = {
  name: "spec",
  required: {
    User: ["userName", "name.givenName", "name.familyName", 'emails[type eq "work"].value'],
    Group: ["displayName"],
  },
  synchronized: {
    User: [
      "userName",
      "active",
      "externalId",
      "name.givenName",
      "name.familyName",
      "emails.value",
      "emails.type",
      "addresses.country",
      "addresses.type",
      "roles.value",
      "roles.primary",
      `${ENTERPRISE}:department`,
      `${ENTERPRISE}:division`,
      `${ENTERPRISE}:employeeNumber`,
      "nickName",
      "preferredLanguage",
    ],
    // members.$ref is not stored but rendered from the member id (RFC 7643 §4.2), so it is advertised.
    Group: ["displayName", "externalId", "members.value", "members.type", "members.display", "members.$ref"],
  },
};
