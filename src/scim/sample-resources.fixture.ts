/**
 * Sample resources for the unit tests of the protocol core, shaped like RFC 7643 §8.2 and §8.4
 * and like what identity providers send.
 */
export const ENTERPRISE_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const USER_URN = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_URN = "urn:ietf:params:scim:schemas:core:2.0:Group";

/** A full user body as a client would POST it (RFC 7643 §8.3, trimmed). */
export function sampleUserBody(): Record<string, unknown> {
  return {
    schemas: [USER_URN, ENTERPRISE_URN],
    externalId: "701984",
    userName: "bjensen@example.com",
    name: { formatted: "Ms. Barbara J Jensen III", familyName: "Jensen", givenName: "Barbara" },
    displayName: "Babs Jensen",
    nickName: "Babs",
    title: "Tour Guide",
    preferredLanguage: "en-US",
    active: true,
    emails: [
      { value: "bjensen@example.com", type: "work", primary: true },
      { value: "babs@jensen.org", type: "home" },
    ],
    addresses: [{ type: "work", streetAddress: "100 Universal City Plaza", country: "US" }],
    phoneNumbers: [{ value: "555-555-5555", type: "work" }],
    roles: [{ value: "Tour Guide", primary: true }],
    [ENTERPRISE_URN]: {
      employeeNumber: "701984",
      costCenter: "4130",
      division: "Theme Park",
      department: "Tour Operations",
      manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d", displayName: "John Smith" },
    },
  };
}
