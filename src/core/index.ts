/**
 * `scimkit/core`: the protocol core — schemas and the registry, profiles and validation, filters,
 * PATCH, projection and the one error class — for code that speaks SCIM without serving it over
 * HTTP (a CLI, a queue consumer, a store of your own). It does no I/O and loads no Express.
 *
 * It is also the one home of what the core and the router share: `ScimError` (the core throws it,
 * the router renders it) and the profiles (`specProfile`, the compatibility profiles), which a
 * router takes as options and the core's validator, filters and PATCH take as arguments. An app
 * imports them from here; `scimkit` does not re-export them.
 */
export { ERROR_SCHEMA, ScimError, ScimType, badRequest, invalidValueError, isScimError } from "../errors.js";
export type { BearerError, ScimErrorBody, ScimErrorOptions, ValidationIssue } from "../errors.js";
export { fail, ok, unwrap } from "../result.js";
export type { Result } from "../result.js";

export { attribute } from "../scim/schema/attribute-definition.js";
export type {
  AttributeDefinition,
  AttributeType,
  Mutability,
  ResourceTypeDefinition,
  Returned,
  SchemaDefinition,
  SchemaExtensionReference,
  Uniqueness,
} from "../scim/schema/attribute-definition.js";
export { commonAttributes } from "../scim/schema/common-attributes.js";
export { coreUserSchema } from "../scim/schema/core-user-schema.js";
export { coreGroupSchema } from "../scim/schema/core-group-schema.js";
export { enterpriseUserSchema } from "../scim/schema/enterprise-user-schema.js";
export { groupResourceType, userResourceType } from "../scim/schema/core-resource-types.js";
export { createSchemaRegistry, defaultPathAliases } from "../scim/schema/schema-registry.js";
export type {
  ExtensionRegistration,
  PathResolution,
  ResourceSchema,
  SchemaRegistry,
  SchemaRegistryOptions,
} from "../scim/schema/schema-registry.js";
export { formatPath } from "../scim/schema/resolved-path.js";
export type { ResolvedPath } from "../scim/schema/resolved-path.js";

// Input normalization itself stays internal: `createResourceValidator` is its public face.
export type { ScimObject } from "../scim/schema/normalize-value.js";
export { rfc7643Profile, specProfile } from "../scim/schema/resource-profile.js";
export type { ResourceProfile } from "../scim/schema/resource-profile.js";
export { COMPATIBILITY_PROFILE_NAMES, isCompatibilityProfileName } from "../scim/compatibility/compatibility-profile-name.js";
export type { CompatibilityProfileName } from "../scim/compatibility/compatibility-profile-name.js";
export { COMPATIBILITY_PROFILES, compatibilityProfileNamed } from "../scim/compatibility/compatibility-profiles.js";
export type { CompatibilityProfile, ResponseChoices, Tolerances } from "../scim/compatibility/compatibility-profile.js";
export { createResourceValidator } from "../scim/schema/create-resource-validator.js";
export type { ResourceValidator } from "../scim/schema/create-resource-validator.js";
export { createProjection } from "../scim/schema/create-projection.js";
export type { Projection, ProjectionRequest } from "../scim/schema/create-projection.js";

export { defaultFilterLimits, parseFilter } from "../scim/filter/parse-filter.js";
export type { FilterLimits } from "../scim/filter/parse-filter.js";
export type {
  AndFilter,
  CompareFilter,
  CompareOperator,
  Filter,
  FilterKind,
  FilterValue,
  NotFilter,
  OrFilter,
  ParsedFilter,
  PresentFilter,
  ValuePathFilter,
} from "../scim/filter/filter-ast.js";
export { compileFilter, resolveFilter } from "../scim/filter/resolve-filter.js";
export { matchesFilter } from "../scim/filter/matches-filter.js";

export { parsePatchPath } from "../scim/path/parse-patch-path.js";
export type { PatchPath } from "../scim/path/patch-path.js";
export { applyPatch, applyPatchStepwise } from "../scim/patch/apply-patch.js";
export type { ApplyPatchOptions, PatchResult } from "../scim/patch/apply-patch.js";
export { PATCH_OP_SCHEMA, parsePatchRequest } from "../scim/patch/patch-request.js";
export type { PatchOpName, PatchOperation } from "../scim/patch/patch-request.js";
export {
  addMembers,
  applyMembershipDelta,
  composeMembershipDeltas,
  isEmptyMembershipDelta,
  noMembershipChange,
  removeMembers,
  replaceMembers,
} from "../scim/patch/membership-delta.js";
export type { MembershipDelta } from "../scim/patch/membership-delta.js";
