/**
 * The built-in compatibility profiles (architecture §4, docs/compatibility-profiles.md): `generic`,
 * `strict`, and one per identity provider with exactly the tolerances its documentation shows.
 */
import type { CompatibilityProfile, ResponseChoices, Tolerances } from "./compatibility-profile.js";
import type { CompatibilityProfileName } from "./compatibility-profile-name.js";

/** Every tolerance on: what scimkit accepted before profiles existed. */
export const ALL_TOLERANCES: Tolerances = Object.freeze({
  anyCaseOps: true,
  stringBooleans: true,
  removeByValue: true,
  bareStringComplex: true,
  arrayOfOne: true,
  pathKeys: true,
  createOnNoMatch: true,
  removeAbsent: true,
  foreignSchemaUrns: true,
  missingSchemas: true,
});

const NO_TOLERANCES: Tolerances = Object.freeze({
  anyCaseOps: false,
  stringBooleans: false,
  removeByValue: false,
  bareStringComplex: false,
  arrayOfOne: false,
  pathKeys: false,
  createOnNoMatch: false,
  removeAbsent: false,
  foreignSchemaUrns: false,
  missingSchemas: false,
});

// A group PATCH answers 204 unless attributes are asked for: no provider's documentation needs the
// group back, and echoing it means loading every member (architecture §4b).
const DEFAULT_RESPONSES: ResponseChoices = Object.freeze({ groupPatch: "noContent", emptyMultiValued: "omit", advertisePagination: true });

function profile(
  name: CompatibilityProfileName,
  tolerances: Partial<Tolerances>,
  responses: Partial<ResponseChoices> = {},
): CompatibilityProfile {
  return Object.freeze({
    name,
    tolerances: Object.freeze({ ...NO_TOLERANCES, ...tolerances }),
    responses: Object.freeze({ ...DEFAULT_RESPONSES, ...responses }),
  });
}

/** The built-in profiles by name; each is frozen. */
export const COMPATIBILITY_PROFILES: Readonly<Record<CompatibilityProfileName, CompatibilityProfile>> = Object.freeze({
  /** Every tolerance: the default, for an organization whose provider is not known. */
  generic: profile("generic", ALL_TOLERANCES),
  /**
   * RFC 7643 and RFC 7644 to the letter: for conformance checkers and clients written to the RFCs.
   * A group PATCH answers 200 with the group, the form RFC 7644 §3.5.2 puts first ("MUST return a
   * 200 OK … or MAY return 204"), which checkers compare against. `/ServiceProviderConfig` has the
   * members of RFC 7643 §5 only: a client whose model is RFC 7643's refuses any other (issue 15).
   */
  strict: profile("strict", {}, { groupPatch: "resource", advertisePagination: false }),
  /**
   * Microsoft Entra ID, with or without the `aadOptscim062020` flag: Tutorial "Develop and plan
   * provisioning for a SCIM endpoint" and "Known issues and resolutions with SCIM 2.0 protocol
   * compliance". Its group PATCH examples answer 204.
   */
  entra: profile("entra", {
    anyCaseOps: true,
    stringBooleans: true,
    removeByValue: true,
    bareStringComplex: true,
    arrayOfOne: true,
    pathKeys: true,
    createOnNoMatch: true,
    removeAbsent: true,
    foreignSchemaUrns: true,
  }),
  /**
   * Okta (developer.okta.com "SCIM 2.0 protocol reference"): lowercase ops, JSON booleans, member
   * removal by filter, path-less replaces with attribute names: every request is RFC-shaped, so
   * only removing an absent member is tolerated. Its membership update allows 204.
   */
  okta: profile("okta", { removeAbsent: true }),
  /**
   * Google Workspace auto-provisioning: the SCIM 1.0 URN beside the SCIM 2.0 ones in `schemas`.
   */
  google: profile("google", { removeAbsent: true, foreignSchemaUrns: true }),
  /**
   * OneLogin (developers.onelogin.com, "Define Your SCIM User Schema"): its user-schema templates
   * list SCIM 1.0 URNs only (`urn:scim:schemas:core:1.0`) in `schemas`. Its lowercase ops and
   * attribute names in varying case are the RFC (RFC 7643 §2.1).
   */
  onelogin: profile("onelogin", { removeAbsent: true, foreignSchemaUrns: true }),
  /**
   * JumpCloud (Custom SCIM Identity Management integration): group members removed by a `value`
   * array without a filter, as Entra does. Group renames come as PATCH; 204 is accepted.
   */
  jumpcloud: profile("jumpcloud", { removeAbsent: true, removeByValue: true }),
  /**
   * PingOne and PingFederate outbound SCIM provisioning ("SCIM provisioning features"): SCIM 2.0
   * requests in RFC form, core and enterprise attributes; only removing an absent member is tolerated.
   */
  ping: profile("ping", { removeAbsent: true }),
});

/** The built-in profile `name`, or undefined for a name no built-in profile has. */
export function compatibilityProfileNamed(name: string): CompatibilityProfile | undefined {
  return Object.hasOwn(COMPATIBILITY_PROFILES, name) ? COMPATIBILITY_PROFILES[name as CompatibilityProfileName] : undefined;
}
