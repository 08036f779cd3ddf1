/**
 * What the setup page tells a customer's IT admin to fill in, per identity provider: where the
 * provider's admin screen is, each field as that screen names it and what goes in it, and what to
 * do after. Taken from docs/connecting-identity-providers.md, which cites each provider's own
 * pages: a change to one is a change to both.
 */
import type { SetupIdentityProvider } from "./analytics-api-types.js";
import type { ProviderScreen } from "./scim-error-explanations.js";

/** What goes into a field of the provider's screen. */
export type FieldValue =
  /** The organization's SCIM base URL, with a copy button. */
  | { readonly kind: "baseUrl" }
  /** The token the page reveals, after `prefix` when the field takes more than the token alone. */
  | { readonly kind: "token"; readonly prefix?: string }
  /** A choice or a value typed as it is. */
  | { readonly kind: "text"; readonly text: string }
  /** A block to paste as it is, with a copy button. */
  | { readonly kind: "code"; readonly code: string };

export interface ProviderField {
  /** As the provider's screen spells it. */
  readonly name: string;
  readonly value: FieldValue;
}

export interface ProviderGuide extends ProviderScreen {
  readonly id: SetupIdentityProvider;
  /** What the radio button says, when it says more than the name. */
  readonly hint?: string;
  /** The compatibility profile the organization gets (setup-link-routes.ts's PROFILE_OF). */
  readonly profile: string;
  /** How to reach the screen with the fields. */
  readonly where: string;
  readonly fields: readonly ProviderField[];
  /** What to do once the fields are filled in, in order. */
  readonly after: readonly string[];
  /** What the provider does not do, said before the admin waits for it. */
  readonly limits?: string;
}

const BASE_URL = { kind: "baseUrl" } as const;
const TOKEN = { kind: "token" } as const;
const text = (value: string): FieldValue => ({ kind: "text", text: value });

/** OneLogin's template in its SCIM 2.0 form, so the enterprise attributes are kept. */
const ONELOGIN_TEMPLATE = `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
  "userName": "{$parameters.scimusername}",
  "name": { "givenName": "{$user.firstname}", "familyName": "{$user.lastname}" },
  "emails": [{ "value": "{$user.email}", "type": "work", "primary": true }],
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { "department": "{$parameters.department}" }
}`;

/** In the order the page offers them: the providers by how often they are met, then any other client. */
export const PROVIDER_GUIDES: readonly ProviderGuide[] = [
  {
    id: "entra",
    name: "Microsoft Entra ID",
    profile: "entra",
    where:
      "In the Microsoft Entra admin center: Enterprise applications → New application → Create your own application → “Integrate any other application you don't find in the gallery”. Then Provisioning → Get started.",
    fields: [
      { name: "Provisioning Mode", value: text("Automatic") },
      { name: "Tenant URL", value: BASE_URL },
      { name: "Secret Token", value: TOKEN },
    ],
    after: [
      "Select Test Connection: Entra looks up a user that does not exist and expects an empty list. The request appears below.",
      'Under Mappings, keep userName, active, name.givenName, name.familyName, emails[type eq "work"].value and externalId; for groups, displayName, members and externalId.',
      "Save, then start provisioning.",
    ],
    baseUrlField: "Tenant URL",
    tokenField: "Secret Token",
    mapping: "the Mappings of its Provisioning page",
  },
  {
    id: "okta",
    name: "Okta",
    profile: "okta",
    where:
      "In the Okta admin console: Applications → Create App Integration → SWA or SAML. In the app's General tab, enable SCIM provisioning; then open the Provisioning tab.",
    fields: [
      { name: "SCIM connector base URL", value: BASE_URL },
      { name: "Unique identifier field for users", value: text("userName") },
      { name: "Supported provisioning actions", value: text("Push New Users, Push Profile Updates, Push Groups") },
      { name: "Authentication Mode", value: text("HTTP Header") },
      { name: "Authorization", value: { kind: "token", prefix: "Bearer " } },
    ],
    after: [
      "Select Test Connector Configuration: Okta reads /ServiceProviderConfig and lists users a page at a time. The requests appear below.",
      "Under To App, enable Create Users, Update User Attributes and Deactivate Users.",
    ],
    limits: "Okta never deletes users: it deactivates them.",
    baseUrlField: "SCIM connector base URL",
    tokenField: "Authorization",
    mapping: "the attribute mappings under To App in its Provisioning tab",
  },
  {
    id: "google",
    name: "Google Workspace",
    profile: "google",
    where: "In the Google Admin console: Apps → Web and mobile apps → your SAML app → Auto-provisioning.",
    fields: [
      { name: "Endpoint URL", value: BASE_URL },
      { name: "Access token", value: TOKEN },
    ],
    after: [
      "Review the attribute mapping: map the primary e-mail to userName and to the work e-mail.",
      "Choose the provisioning scope (groups or organizational units) and the deprovisioning actions.",
      "Turn auto-provisioning on.",
    ],
    limits: "Google provisions users only, not groups, and sends its changes every few hours: the first requests may take a while.",
    baseUrlField: "Endpoint URL",
    tokenField: "Access token",
    mapping: "the attribute mapping of the app's Auto-provisioning",
  },
  {
    id: "onelogin",
    name: "OneLogin",
    profile: "onelogin",
    where:
      "In OneLogin: Applications → Add App → “SCIM Provisioner with SAML (SCIM v2 Enterprise)” (or “(Core Schema)”), then Save. Open its Configuration tab.",
    fields: [
      { name: "SCIM Base URL", value: BASE_URL },
      { name: "SCIM Bearer Token", value: TOKEN },
      { name: "SCIM JSON Template", value: { kind: "code", code: ONELOGIN_TEMPLATE } },
    ],
    after: [
      "Under API Connection, select Enable: OneLogin looks up a user that cannot exist and takes the empty list as success. The request appears below.",
      "In the Provisioning tab, select Enable provisioning, and choose what “When users are deleted in OneLogin” does (Delete, Suspend or Do nothing).",
      "To push groups, open Parameters → Groups and select Include in User Provisioning.",
    ],
    baseUrlField: "SCIM Base URL",
    tokenField: "SCIM Bearer Token",
    mapping: "the SCIM JSON Template of its Configuration tab",
  },
  {
    id: "jumpcloud",
    name: "JumpCloud",
    profile: "jumpcloud",
    where: "In the JumpCloud admin portal: SSO → your SAML application → Identity Management tab.",
    fields: [
      { name: "SCIM Version", value: text("SCIM 2.0") },
      { name: "Base URL", value: BASE_URL },
      { name: "Token Key", value: TOKEN },
      { name: "Test User Email", value: text("an address of your domain") },
    ],
    after: [
      "Select Test Connection, then Activate and Save. The test creates a test user and a test group and deletes both: those requests appear below.",
      "To push groups, select “Enable management of User Groups and Group Membership in this application”, and bind user groups to the app in its User Groups tab.",
    ],
    limits: "JumpCloud does not push empty user groups.",
    baseUrlField: "Base URL",
    tokenField: "Token Key",
    mapping: "the attributes of the users bound to the application",
  },
  {
    id: "ping",
    name: "Ping Identity",
    hint: "PingFederate, PingOne",
    profile: "ping",
    where: "In PingFederate: an outbound provisioning connection with the SCIM Provisioner, and its SCIM connector settings.",
    fields: [
      { name: "SCIM URL", value: BASE_URL },
      { name: "SCIM Version", value: text("2.0") },
      { name: "Authentication Methods", value: text("OAuth 2 Bearer Token") },
      { name: "Access Token", value: TOKEN },
      { name: "Unique User Identifier (SCIM Overrides)", value: text("userName") },
    ],
    after: [
      "Choose the provisioning options (User Create, User Update, User Disable / Delete, Provision Disabled Users) and the Remove User Action (disable or delete).",
      "In PingOne instead: a SCIM outbound provisioning connection with the SCIM base URL, bearer-token authentication with the token, and User Identifier userName; the default user filter expression is fine.",
    ],
    limits:
      "The connector updates users with PUT, which replaces every attribute: attributes your application sets on users and Ping does not send are cleared by its next update.",
    baseUrlField: "SCIM URL",
    tokenField: "Access Token",
    mapping: "the connection's attribute mapping",
  },
  {
    id: "other",
    name: "Other SCIM 2.0 client",
    hint: "any client that follows RFC 7644",
    profile: "generic",
    where: "In the client's settings, whatever it calls them (tenant URL, endpoint URL, base URL).",
    fields: [
      { name: "SCIM base URL", value: BASE_URL },
      { name: "Authorization header", value: { kind: "token", prefix: "Bearer " } },
    ],
    after: ["Send every request to the base URL with the header Authorization: Bearer and the token.", "Match users by userName."],
    baseUrlField: "SCIM base URL",
    tokenField: "Authorization header",
    mapping: "its attribute mapping",
  },
];

/** The guide of `provider`. */
export function guideOf(provider: SetupIdentityProvider): ProviderGuide {
  const guide = PROVIDER_GUIDES.find((candidate) => candidate.id === provider);
  if (guide === undefined) throw new Error(`No setup guide for the identity provider ${provider}`);
  return guide;
}
