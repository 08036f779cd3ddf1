/**
 * A compatibility profile (architecture §4, §8.4): the named set of identity-provider tolerances an
 * organization's requests are read with, and the choices the service makes in its answers where
 * the RFCs allow more than one. The core reads `Tolerances` only; the HTTP layer reads `responses`.
 */

/**
 * One switch per tolerance the core has. Each is a departure from RFC 7643 or RFC 7644 that an
 * identity provider needs; `true` accepts the provider's shape, `false` answers it as the RFC says.
 * Every tolerance is implemented in one place, which checks its switch (architecture §8.4).
 */
export interface Tolerances {
  /**
   * A PATCH `op` in any case (`"Add"`, `"Replace"`, `"Remove"`). Off: 400 `invalidSyntax`, since
   * RFC 7644 §3.5.2 spells the values "add", "remove" and "replace".
   * Sent by Microsoft Entra ID: https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
   * (User Operations, Update User). Implemented in `patch/patch-request.ts`.
   */
  readonly anyCaseOps: boolean;
  /**
   * `"True"`/`"False"` (any case) strings for boolean attributes, in resource bodies, PATCH values
   * and filters. Off: 400 `invalidValue` in a body or value, 400 `invalidFilter` in a filter,
   * 400 `invalidPath` in a PATCH path's filter, each naming the value: RFC 7643 §2.3.2 makes a boolean the JSON literal.
   * Sent by Microsoft Entra ID without the `aadOptscim062020` flag:
   * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility
   * Implemented in `schema/normalize-value.ts` and `filter/resolve-filter.ts`.
   */
  readonly stringBooleans: boolean;
  /**
   * A `remove` on a multi-valued attribute without a filter that carries a `value` array removes
   * only the values listed (`{"op":"Remove","path":"members","value":[{"value":"<id>"}]}`). Off:
   * 400 `invalidSyntax` asking for a filter, because RFC 7644 §3.5.2.2 gives remove no value and
   * would remove every value.
   * Sent by Microsoft Entra ID (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups, Update Group [Remove Members];
   * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility, Requests made to remove a group member)
   * and JumpCloud (https://app.uni-moni.com/en/kb/sso-setup-jumpcloud: members removed by value array).
   * Implemented in `patch/apply-attribute-operation.ts` and `patch/apply-member-operation.ts`.
   */
  readonly removeByValue: boolean;
  /**
   * A bare string for a complex attribute that has a `value` sub-attribute: the enterprise `manager`
   * as `"<id>"` is read as `{"value": "<id>"}`. Off: 400 `invalidValue` (RFC 7643 §2.3.8: a complex
   * value is an object).
   * Sent by Microsoft Entra ID (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility,
   * Requests made to add a single-value string attribute).
   * Implemented in `schema/normalize-value.ts`.
   */
  readonly bareStringComplex: boolean;
  /**
   * An array of one where one value belongs: a single-valued complex attribute (`manager`) or the
   * element a filtered PATCH path names (`emails[type eq "work"]`). Off: 400 `invalidValue`
   * (RFC 7643 §2.4: only multi-valued attributes are arrays).
   * Sent by Microsoft Entra ID (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups,
   * Handling provisioning and deprovisioning of users, example 5).
   * Implemented in `schema/normalize-value.ts`, `patch/apply-attribute-operation.ts` and `patch/apply-member-operation.ts`.
   */
  readonly arrayOfOne: boolean;
  /**
   * Keys of a resource body or of a path-less PATCH value that are attribute paths rather than
   * names: dotted (`"name.givenName"`), URN-qualified (`"urn:…:enterprise:2.0:User:department"`)
   * or filtered (`"emails[type eq \"work\"].value"`). Off: 400 `invalidValue` naming the key:
   * RFC 7644 §3.5.2 makes a path-less value the attributes in resource form (RFC 7643 §3.3 nests
   * an extension's attributes under its URN).
   * Sent by Microsoft Entra ID with the `aadOptscim062020` flag (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility,
   * Requests to replace multiple attributes). Implemented in `schema/normalize-resource.ts` (`flattenInput`).
   */
  readonly pathKeys: boolean;
  /**
   * An `add` or `replace` on a filtered path that matches no value creates the value the filter
   * describes (`replace emails[type eq "work"].value` on a user without a work e-mail adds one).
   * Off: 400 `noTarget`, as RFC 7644 §3.5.2.3 requires.
   * Sent by Microsoft Entra ID (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups,
   * Design your user and group schema: `emails[type eq "work"].value` for users that have none). Implemented in `patch/apply-attribute-operation.ts`.
   */
  readonly createOnNoMatch: boolean;
  /**
   * A `remove` of values that are absent succeeds and changes nothing: a filter that matches no
   * value (`members[value eq "<gone>"]`), a value array naming values not there. Off: 400
   * `noTarget` (RFC 7644 §3.12: "a filter that yields no match"). Removing an unassigned attribute
   * (`remove title`) is the RFC either way (RFC 7644 §3.5.2.2 leaves it unassigned). A group
   * patched without loading its members cannot tell, and always succeeds.
   * Needed by every provider: deleting a user removes it from every group (architecture §3), and
   * the provider's own removal of that member follows (Entra: https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility;
   * Okta: https://developer.okta.com/docs/reference/scim/scim-20/, Update specific Group membership).
   * Implemented in `patch/apply-attribute-operation.ts`.
   */
  readonly removeAbsent: boolean;
  /**
   * `schemas` of a resource body or PatchOp message may list URNs this service does not know, which
   * are ignored: Google's SCIM 1.0 `urn:scim:schemas:core:1.0`, Entra's
   * `http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group`. Off: 400
   * `invalidSyntax` naming the URN (RFC 7643 §3: `schemas` lists the schemas of the representation).
   * Sent by Google Workspace auto-provisioning (https://support.google.com/a/answer/7365072) and by
   * Microsoft Entra ID on group creation (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups, Create Group).
   * Implemented in `schema/normalize-resource.ts` and `patch/patch-request.ts`.
   */
  readonly foreignSchemaUrns: boolean;
  /**
   * A resource body or PatchOp message without `schemas`. Off: 400 `invalidSyntax`: RFC 7643 §3
   * makes `schemas` REQUIRED on a resource, and RFC 7644 §3.5.2 on a PatchOp message.
   * Sent by hand-written clients and scripts; no identity provider documents it.
   * Implemented in `schema/normalize-resource.ts` and `patch/patch-request.ts`.
   */
  readonly missingSchemas: boolean;
}

/** The choices the service makes in its answers where the RFCs allow more than one. */
export interface ResponseChoices {
  /**
   * What a successful PATCH of a resource with members (Group) answers. `"noContent"`: 204 with an
   * `ETag`, unless the request names `attributes` or `excludedAttributes`, which spares loading every
   * member just to echo them. `"resource"`: 200 with the group, members included unless excluded.
   * RFC 7644 §3.5.2 allows both. A `/Bulk` operation's response carries no resource either way.
   */
  readonly groupPatch: "resource" | "noContent";
  /**
   * What a representation does with a multi-valued attribute that has no value (a group whose
   * members were all removed). `"omit"`: it is left out; `"keep"`: `"members": []`. RFC 7643 §2.5
   * makes the two equivalent; clients that compare a PATCHed state read `[]` as "not removed".
   */
  readonly emptyMultiValued: "omit" | "keep";
  /**
   * Whether `/ServiceProviderConfig` carries the `pagination` block of RFC 9865 §4. Some client
   * libraries refuse the whole document because of a member their model does not know.
   */
  readonly advertisePagination: boolean;
}

/**
 * A named set of tolerances and response choices. The built-in ones are in
 * `COMPATIBILITY_PROFILES`; a host may build its own (spread a built-in one and change a switch).
 */
export interface CompatibilityProfile {
  /** The profile's name, for logs and errors (`"entra"`, or a host's own name). */
  readonly name: string;
  /** Which identity-provider shapes the core accepts. */
  readonly tolerances: Tolerances;
  /** How the service answers where the RFCs allow a choice. */
  readonly responses: ResponseChoices;
}
