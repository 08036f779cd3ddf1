/**
 * A SCIM error in plain words: what went wrong and what the identity provider expects, keyed by
 * the RFC 7644 §3.12 `scimType` when the response had one, else by the HTTP status; and, for the
 * setup page, what to change in the identity provider's own admin screen, naming its fields.
 */

export interface Explanation {
  /** What the answer means. */
  readonly meaning: string;
  /** What the identity provider does with it, and what to change. */
  readonly expects: string;
}

/** RFC 7644 §3.12, Table 9. */
const BY_SCIM_TYPE: Readonly<Record<string, Explanation>> = {
  invalidFilter: {
    meaning: "The filter in the request could not be read, or compares an attribute in a way the service does not support.",
    expects:
      'Identity providers send simple filters (userName eq "…", externalId eq "…"). A failure here usually means an attribute mapping produces a value with quotes or an unsupported attribute: check the provider\'s matching attribute.',
  },
  tooMany: {
    meaning: "The query would return more results than the service returns at once.",
    expects: "Narrow the filter or page with startIndex and count; providers page on their own when they see totalResults.",
  },
  uniqueness: {
    meaning: "Another resource already has this userName, externalId or group displayName (409).",
    expects:
      'Entra and Okta look the user up first and should PATCH the existing one. Delete or rename the duplicate, or set the organization\'s existing-user behaviour to "link".',
  },
  mutability: {
    meaning: "The request tried to change an attribute that cannot be changed (such as id or meta), or is read-only.",
    expects: "Remove the attribute from the provider's attribute mapping, or map it to a writable one.",
  },
  invalidSyntax: {
    meaning: "The request body is not valid SCIM: malformed JSON, a missing schemas member, or a structure the schema does not allow.",
    expects:
      "Compare the request body with RFC 7643. A custom attribute mapping with an expression that yields the wrong type is the usual cause.",
  },
  invalidPath: {
    meaning: "A PATCH operation's path does not name an attribute this service knows, or is malformed.",
    expects:
      "Entra sends paths such as emails[type eq \"work\"].value and the enterprise extension's URN-prefixed paths; check the mapping's target attribute name and the organization's compatibility profile.",
  },
  noTarget: {
    meaning: "A PATCH path with a filter matched nothing to change.",
    expects: "The provider assumed a value exists (a work e-mail, a member). Add it first, or let the provider send a full replace.",
  },
  invalidValue: {
    meaning: "A value has the wrong type or is not allowed (a string for a boolean, an unknown member id, a required attribute missing).",
    expects: 'Check the attribute mapping\'s types. Entra sends "True"/"False" strings; the entra compatibility profile accepts them.',
  },
  invalidVers: {
    meaning: "The request asked for a SCIM version this service does not speak.",
    expects: "Configure the provider for SCIM 2.0.",
  },
  sensitive: {
    meaning: "The request put sensitive data (a password) in the URL.",
    expects: "Send it in the body, never in a query.",
  },
};

const BY_STATUS: Readonly<Record<number, Explanation>> = {
  400: { meaning: "The service could not accept the request as sent.", expects: "Read the detail: it names the attribute or the rule." },
  401: {
    meaning: "The bearer token was missing, wrong, expired, revoked or rotated, or the organization is suspended.",
    expects:
      "Paste the organization's current SCIM token into the provider (Entra: Secret Token; Okta: API token) and test the connection.",
  },
  403: {
    meaning: "The token is valid but may not do this.",
    expects: "Check which operations the provider is allowed to perform for this organization.",
  },
  404: {
    meaning: "No resource with this id exists in this organization (or the base URL is wrong).",
    expects:
      "The provider still holds an id for a user or group deleted here. Providers recover by searching by userName or externalId and creating it again; check the tenant URL ends in /scim/Organizations/{id}/v2.",
  },
  409: {
    meaning: "The request conflicts with existing data (a duplicate userName, externalId or displayName).",
    expects: "Remove the duplicate or link the existing user; the provider retries on its next cycle.",
  },
  412: {
    meaning: "The resource changed since the provider read it: its If-Match version no longer matches (RFC 7644 §3.14).",
    expects: "The provider should read the resource again and retry with the new ETag.",
  },
  413: {
    meaning: "The request was too large: a body, a Bulk request or a PATCH with more operations or members than the host allows.",
    expects: "Providers split large group changes; lower the batch size, or raise the host's limits if the traffic is legitimate.",
  },
  415: { meaning: "The body was not JSON.", expects: "Send Content-Type: application/scim+json or application/json." },
  429: {
    meaning: "The organization sent more requests than the host allows per second, or too many expensive ones at once.",
    expects: "Identity providers back off and retry after the Retry-After header; nothing to do unless it persists.",
  },
  500: { meaning: "The service failed unexpectedly.", expects: "The provider retries later. Check the host's log for the error." },
  501: {
    meaning: "The service does not implement this operation.",
    expects: "Turn the feature off in the provider (for example, Bulk or sorting).",
  },
  503: {
    meaning: "The service's database was unreachable for a moment.",
    expects: "The provider retries after Retry-After; check the database if it persists.",
  },
};

/** The explanation of a failed response, or undefined for a success. */
export function explain(status: number, scimType?: string): Explanation | undefined {
  if (status < 400) return undefined;
  if (scimType !== undefined && BY_SCIM_TYPE[scimType]) return BY_SCIM_TYPE[scimType];
  return BY_STATUS[status] ?? (status >= 500 ? BY_STATUS[500] : BY_STATUS[400]);
}

/** Where an identity provider's admin screen keeps what a failure points at, so advice can name it. */
export interface ProviderScreen {
  /** The provider's name, e.g. "Okta". */
  readonly name: string;
  /** What its screen calls the SCIM base URL. */
  readonly baseUrlField: string;
  /** What its screen calls the token. */
  readonly tokenField: string;
  /** Where its attribute mapping is edited, e.g. "the Provisioning tab's To App mappings". */
  readonly mapping: string;
}

type Change = (screen: ProviderScreen) => string;

const mapEveryRequired: Change = ({ name, mapping }) =>
  `In ${name}, check ${mapping}: every required attribute (userName first) must be mapped, each to a value of its attribute's type.`;
const mapUnique: Change = ({ name, mapping }) =>
  `In ${name}, check ${mapping}: each person needs a userName (and an externalId) of their own. Then provision that user again.`;

/** Keyed as `BY_SCIM_TYPE`; a type missing here (noTarget, tooMany, sensitive) has nothing to change in the provider's screen. */
const CHANGE_BY_SCIM_TYPE: Readonly<Record<string, Change>> = {
  invalidFilter: ({ name, mapping }) =>
    `In ${name}, check ${mapping}: the attribute users are matched by (userName) must map to a plain value, without quotes.`,
  uniqueness: mapUnique,
  mutability: ({ name, mapping }) =>
    `In ${name}, remove the attribute the detail names from ${mapping}, or map it to one that can be written.`,
  invalidPath: ({ name, mapping }) =>
    `In ${name}, check ${mapping}: the target attribute the detail names must be a SCIM attribute, spelled as RFC 7643 spells it.`,
  invalidValue: mapEveryRequired,
  invalidSyntax: mapEveryRequired,
  invalidVers: ({ name }) => `In ${name}, choose SCIM 2.0 where it asks for a version.`,
};

/** Keyed as `BY_STATUS`; a 403, 412, 413, 415, 429 or 5xx is not fixed in the provider's screen. */
const CHANGE_BY_STATUS: Readonly<Record<number, Change>> = {
  400: mapEveryRequired,
  401: ({ name, tokenField }) =>
    `In ${name}, paste the token this page revealed into ${tokenField} and test the connection again; if it was lost, ask an administrator to rotate it.`,
  404: ({ name, baseUrlField }) =>
    `If every request fails like this, check that ${name}'s ${baseUrlField} is exactly the SCIM base URL on this page. If only some do, ${name} asked for a user or group that no longer exists here, and finds it again by userName on its next cycle.`,
  409: mapUnique,
  501: ({ name }) => `In ${name}, turn off the feature this request used (such as Bulk or sorting).`,
};

/**
 * What to change in the identity provider's own admin screen for a failed response, naming that
 * screen's fields: the setup page's reader is the provider's admin, who cannot change this service.
 * Undefined for a success, and where nothing on the provider's side would help.
 */
export function changeInProvider(status: number, scimType: string | undefined, screen: ProviderScreen): string | undefined {
  if (status < 400) return undefined;
  if (scimType !== undefined && BY_SCIM_TYPE[scimType]) return CHANGE_BY_SCIM_TYPE[scimType]?.(screen);
  return CHANGE_BY_STATUS[status]?.(screen);
}
