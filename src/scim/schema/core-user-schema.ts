/**
 * The core User schema, `urn:ietf:params:scim:schemas:core:2.0:User` (RFC 7643 §4.1), transcribed
 * from its JSON representation in RFC 7643 §8.7.1. Where that representation contradicts the
 * normative prose, the prose wins and the line says so.
 */
import { attribute, type AttributeDefinition, type SchemaDefinition } from "./attribute-definition.js";

const ONCE = "The primary attribute value 'true' MUST appear no more than once.";

/**
 * §8.7.1 gives every `display` of a multi-valued attribute mutability readWrite although its
 * description says READ-ONLY; the characteristic is what clients and validation read, so it stays.
 */
const display = (): AttributeDefinition =>
  attribute("display", { description: "A human-readable name, primarily used for display purposes. READ-ONLY." });

const primary = (description: string): AttributeDefinition =>
  attribute("primary", { type: "boolean", description: `${description} ${ONCE}` });

const label = (description: string, canonicalValues?: readonly string[]): AttributeDefinition =>
  attribute("type", canonicalValues === undefined ? { description } : { description, canonicalValues });

/** The core User schema of RFC 7643 §4.1 with every attribute and characteristic of §8.7.1. */
export const coreUserSchema: SchemaDefinition = {
  id: "urn:ietf:params:scim:schemas:core:2.0:User",
  name: "User",
  description: "User Account",
  attributes: [
    attribute("userName", {
      description:
        "Unique identifier for the User, typically used by the user to directly authenticate to the service provider. " +
        "Each User MUST include a non-empty userName value. This identifier MUST be unique across the service " +
        "provider's entire set of Users. REQUIRED.",
      required: true,
      uniqueness: "server",
    }),
    attribute("name", {
      type: "complex",
      description:
        "The components of the user's real name. Providers MAY return just the full name as a single string in the " +
        "formatted sub-attribute, or they MAY return just the individual component attributes using the other " +
        "sub-attributes, or they MAY return both. If both variants are returned, they SHOULD be describing the same " +
        "name, with the formatted name indicating how the component attributes should be combined.",
      subAttributes: [
        attribute("formatted", {
          description:
            "The full name, including all middle names, titles, and suffixes as appropriate, formatted for display " +
            "(e.g., 'Ms. Barbara J Jensen, III').",
        }),
        attribute("familyName", {
          description:
            "The family name of the User, or last name in most Western languages (e.g., 'Jensen' given the full name " +
            "'Ms. Barbara J Jensen, III').",
        }),
        attribute("givenName", {
          description:
            "The given name of the User, or first name in most Western languages (e.g., 'Barbara' given the full name " +
            "'Ms. Barbara J Jensen, III').",
        }),
        attribute("middleName", {
          description: "The middle name(s) of the User (e.g., 'Jane' given the full name 'Ms. Barbara J Jensen, III').",
        }),
        attribute("honorificPrefix", {
          description:
            "The honorific prefix(es) of the User, or title in most Western languages (e.g., 'Ms.' given the full name " +
            "'Ms. Barbara J Jensen, III').",
        }),
        attribute("honorificSuffix", {
          description:
            "The honorific suffix(es) of the User, or suffix in most Western languages (e.g., 'III' given the full name " +
            "'Ms. Barbara J Jensen, III').",
        }),
      ],
    }),
    attribute("displayName", {
      description:
        "The name of the User, suitable for display to end-users. The name SHOULD be the full name of the User being " +
        "described, if known.",
    }),
    attribute("nickName", {
      description:
        "The casual way to address the user in real life, e.g., 'Bob' or 'Bobby' instead of 'Robert'. This attribute " +
        "SHOULD NOT be used to represent a User's username (e.g., 'bjensen' or 'mpepperidge').",
    }),
    attribute("profileUrl", {
      type: "reference",
      referenceTypes: ["external"],
      // §8.7.1 says caseExact false, but §2.3.7 states "A reference is case exact" (erratum 6001, reported).
      caseExact: true,
      description: "A fully qualified URL pointing to a page representing the User's online profile.",
    }),
    attribute("title", { description: 'The user\'s title, such as "Vice President."' }),
    attribute("userType", {
      description:
        "Used to identify the relationship between the organization and the user. Typical values used might be " +
        "'Contractor', 'Employee', 'Intern', 'Temp', 'External', and 'Unknown', but any value may be used.",
    }),
    attribute("preferredLanguage", {
      description:
        "Indicates the User's preferred written or spoken language. Generally used for selecting a localized user " +
        "interface; e.g., 'en_US' specifies the language English and country US.",
    }),
    attribute("locale", {
      description:
        "Used to indicate the User's default location for purposes of localizing items such as currency, date time " +
        "format, or numerical representations.",
    }),
    attribute("timezone", {
      description: "The User's time zone in the 'Olson' time zone database format, e.g., 'America/Los_Angeles'.",
    }),
    attribute("active", { type: "boolean", description: "A Boolean value indicating the User's administrative status." }),
    attribute("password", {
      description:
        "The User's cleartext password. This attribute is intended to be used as a means to specify an initial " +
        "password when creating a new User or to reset an existing User's password.",
      mutability: "writeOnly",
      returned: "never",
    }),
    attribute("emails", {
      type: "complex",
      multiValued: true,
      description:
        "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., " +
        "'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'.",
      subAttributes: [
        attribute("value", {
          description:
            "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., " +
            "'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'.",
        }),
        display(),
        label("A label indicating the attribute's function, e.g., 'work' or 'home'.", ["work", "home", "other"]),
        primary(
          "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the " +
            "preferred mailing address or primary email address.",
        ),
      ],
    }),
    attribute("phoneNumbers", {
      type: "complex",
      multiValued: true,
      description:
        "Phone numbers for the User. The value SHOULD be canonicalized by the service provider according to the " +
        "format specified in RFC 3966, e.g., 'tel:+1-201-555-0123'. Canonical type values of 'work', 'home', " +
        "'mobile', 'fax', 'pager', and 'other'.",
      subAttributes: [
        attribute("value", { description: "Phone number of the User." }),
        display(),
        label("A label indicating the attribute's function, e.g., 'work', 'home', 'mobile'.", [
          "work",
          "home",
          "mobile",
          "fax",
          "pager",
          "other",
        ]),
        primary(
          "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the " +
            "preferred phone number or primary phone number.",
        ),
      ],
    }),
    attribute("ims", {
      type: "complex",
      multiValued: true,
      description: "Instant messaging addresses for the User.",
      subAttributes: [
        attribute("value", { description: "Instant messaging address for the User." }),
        display(),
        label("A label indicating the attribute's function, e.g., 'aim', 'gtalk', 'xmpp'.", [
          "aim",
          "gtalk",
          "icq",
          "xmpp",
          "msn",
          "skype",
          "qq",
          "yahoo",
        ]),
        primary(
          "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the " +
            "preferred messenger or primary messenger.",
        ),
      ],
    }),
    attribute("photos", {
      type: "complex",
      multiValued: true,
      description: "URLs of photos of the User.",
      subAttributes: [
        attribute("value", {
          type: "reference",
          referenceTypes: ["external"],
          // §2.3.7: "A reference is case exact"; §8.7.1's caseExact false is erratum 6001 (reported).
          caseExact: true,
          description: "URL of a photo of the User.",
        }),
        display(),
        label("A label indicating the attribute's function, i.e., 'photo' or 'thumbnail'.", ["photo", "thumbnail"]),
        primary(
          "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the " +
            "preferred photo or thumbnail.",
        ),
      ],
    }),
    attribute("addresses", {
      type: "complex",
      multiValued: true,
      description:
        "A physical mailing address for this User. Canonical type values of 'work', 'home', and 'other'. This " +
        "attribute is a complex type with the following sub-attributes.",
      subAttributes: [
        attribute("formatted", {
          description: "The full mailing address, formatted for display or use with a mailing label. This attribute MAY contain newlines.",
        }),
        attribute("streetAddress", {
          description:
            "The full street address component, which may include house number, street name, P.O. box, and " +
            "multi-line extended street address information. This attribute MAY contain newlines.",
        }),
        attribute("locality", { description: "The city or locality component." }),
        attribute("region", { description: "The state or region component." }),
        attribute("postalCode", { description: "The zip code or postal code component." }),
        attribute("country", { description: "The country name component." }),
        label("A label indicating the attribute's function, e.g., 'work' or 'home'.", ["work", "home", "other"]),
        // §8.7.1 omits it, but §2.4 gives every multi-valued attribute a default `primary` and the
        // §8.2 example sends one on an address; without it a strict parser would drop that value.
        primary(
          "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the " +
            "preferred mailing address.",
        ),
      ],
    }),
    attribute("groups", {
      type: "complex",
      multiValued: true,
      // §4.1.2: membership is managed through the Group resource, never through the User.
      mutability: "readOnly",
      description:
        "A list of groups to which the user belongs, either through direct membership, through nested groups, or " +
        "dynamically calculated.",
      subAttributes: [
        attribute("value", { mutability: "readOnly", description: "The identifier of the User's group." }),
        attribute("$ref", {
          type: "reference",
          // As §8.7.1 publishes it; a user's groups are Groups, but the RFC lists User too.
          referenceTypes: ["User", "Group"],
          // §2.3.7: "A reference is case exact" (erratum 6001, reported, on §8.7.1's false).
          caseExact: true,
          mutability: "readOnly",
          description: "The URI of the corresponding 'Group' resource to which the user belongs.",
        }),
        attribute("display", {
          mutability: "readOnly",
          description: "A human-readable name, primarily used for display purposes. READ-ONLY.",
        }),
        attribute("type", {
          mutability: "readOnly",
          canonicalValues: ["direct", "indirect"],
          description: "A label indicating the attribute's function, e.g., 'direct' or 'indirect'.",
        }),
      ],
    }),
    attribute("entitlements", {
      type: "complex",
      multiValued: true,
      description: "A list of entitlements for the User that represent a thing the User has.",
      subAttributes: [
        attribute("value", { description: "The value of an entitlement." }),
        display(),
        label("A label indicating the attribute's function."),
        primary("A Boolean value indicating the 'primary' or preferred attribute value for this attribute."),
      ],
    }),
    attribute("roles", {
      type: "complex",
      multiValued: true,
      description: "A list of roles for the User that collectively represent who the User is, e.g., 'Student', 'Faculty'.",
      subAttributes: [
        attribute("value", { description: "The value of a role." }),
        display(),
        label("A label indicating the attribute's function.", []),
        primary("A Boolean value indicating the 'primary' or preferred attribute value for this attribute."),
      ],
    }),
    attribute("x509Certificates", {
      type: "complex",
      multiValued: true,
      description: "A list of certificates issued to the User.",
      subAttributes: [
        attribute("value", {
          type: "binary",
          // §8.7.1 says caseExact false, but §2.3.6 states "A binary is case exact" (erratum 6000, reported):
          // base64 is case-significant, so two certificates differing in case are different certificates.
          caseExact: true,
          description: "The value of an X.509 certificate.",
        }),
        display(),
        label("A label indicating the attribute's function.", []),
        primary("A Boolean value indicating the 'primary' or preferred attribute value for this attribute."),
      ],
    }),
  ],
};
