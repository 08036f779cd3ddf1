/**
 * The SCIM operations on resources (RFC 7644 §3.3–§3.6), free of Express so that the routes and
 * `/Bulk` run the very same code. Like the store it sits on, it takes one request object per call;
 * `createResourceService` builds it.
 */
import type { CompatibilityProfile } from "../../scim/compatibility/compatibility-profile.js";
import { COMPATIBILITY_PROFILES } from "../../scim/compatibility/compatibility-profiles.js";
import type { ExistingUserPolicy } from "./existing-user-policy.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ListRequest, StoredResource } from "../../store/resource-store.js";
import type { WorkPermit } from "../fair-share/expensive-work-gate.js";
import type { ListParameters } from "../search/list-parameters.js";
import type { TypeHandler } from "./type-handler.js";

/** Who is asking and where their SCIM service lives. */
export interface ServiceContext {
  /** The organization (tenant) every store call of the request is scoped to. */
  readonly orgId: string;
  /** Absolute base URL of the organization's SCIM service, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * The organization's compatibility profile (architecture §4): the tolerances its requests are
   * read with and the response choices. Absent: `generic`.
   */
  readonly compatibility?: CompatibilityProfile;
  /** What a POST of a user that exists does here (`ScimRouterOptions.existingUsers`). Absent: `"conflict"`. */
  readonly existingUsers?: ExistingUserPolicy;
}

/** The profile a service context carries: `generic` when none was chosen. */
export function compatibilityOf(context: ServiceContext): CompatibilityProfile {
  return context.compatibility ?? COMPATIBILITY_PROFILES.generic;
}

/** Where a call applies: one organization's service and one of its resource types. */
export interface ServiceRequest {
  readonly context: ServiceContext;
  /** The resource type's id as registered (`User`); one of `ResourceService.handlers`. */
  readonly resourceType: string;
}

/** Creates a resource from a client's POST body (RFC 7644 §3.3). */
export interface CreateResourceRequest extends ServiceRequest {
  /** The body as parsed, not yet validated. */
  readonly body: unknown;
  /**
   * The client's `If-Match`: guards a POST that links an existing user (`existingUsers: "link"`),
   * 412 on a stale version with nothing written; ignored by a POST that creates.
   */
  readonly ifMatch?: string;
  /** Whether the outcome carries the members (the response's projection includes them). */
  readonly members: boolean;
}

/** Reads one resource (RFC 7644 §3.4.1). */
export interface GetResourceRequest extends ServiceRequest {
  /** The resource's id as the client named it (the URL's last segment); any string, checked here. */
  readonly id: string;
  /** Whether to load the members; false never reads them (architecture §3). */
  readonly members: boolean;
}

/** Replaces a resource with a client's PUT body (RFC 7644 §3.5.1), members included. */
export interface ReplaceResourceRequest extends ServiceRequest {
  /** The resource's id as the client named it (the URL's last segment); any string, checked here. */
  readonly id: string;
  /** The body as parsed, not yet validated. */
  readonly body: unknown;
  /** The client's `If-Match` (RFC 7644 §3.14): a stale version is 412 and nothing is written. */
  readonly ifMatch?: string;
  /** Whether the outcome carries the members. */
  readonly members: boolean;
}

/** Applies a client's PatchOp body (RFC 7644 §3.5.2); member operations become a delta. */
export interface PatchResourceRequest extends ServiceRequest {
  /** The resource's id as the client named it (the URL's last segment); any string, checked here. */
  readonly id: string;
  /** The PatchOp body as parsed, not yet validated. */
  readonly body: unknown;
  /** The client's `If-Match` (RFC 7644 §3.14): a stale version is 412 and nothing is written. */
  readonly ifMatch?: string;
  /** Whether the outcome carries the members; false spares loading them (the 204 answer). */
  readonly members: boolean;
}

/** Deletes a resource (RFC 7644 §3.6). */
export interface DeleteResourceRequest extends ServiceRequest {
  /** The resource's id as the client named it (the URL's last segment); any string, checked here. */
  readonly id: string;
  /** The client's `If-Match` (RFC 7644 §3.14): a stale version is 412 and nothing is deleted. */
  readonly ifMatch?: string;
}

/** Lists resources (RFC 7644 §3.4.2, cursors RFC 9865). */
export interface ListResourcesRequest extends ServiceRequest {
  /** The query's parameters as read from the URL or the `.search` body, not yet validated. */
  readonly parameters: ListParameters;
  /** Whether the resources should carry members (the response's projection includes them). */
  readonly members: boolean;
  /**
   * Asked with the store's request once the parameters are valid, before the store is: resolves
   * with a permit to release when the page is rendered, or `undefined` when the request may run
   * at once (the router's fair share, `WorkAdmission`). Absent: every list runs at once.
   */
  readonly admit?: (request: ListRequest) => Promise<WorkPermit | undefined>;
}

/** The outcome of a write or read of one resource. */
export interface ResourceOutcome {
  readonly stored: StoredResource;
  /** Rendered for the response (before any `attributes` projection). */
  readonly resource: ScimObject;
  /**
   * True when a create linked an existing user instead (`existingUsers: "link"`): the answer is
   * 200 with that user, not 201.
   */
  readonly linked?: boolean;
}

/** A list page, normalized for the ListResponse (RFC 7644 §3.4.2). */
export interface ListOutcome {
  readonly totalResults: number;
  readonly resources: readonly ScimObject[];
  /** For index paging, the 1-based index of the first result. */
  readonly startIndex?: number;
  /** For cursor paging (RFC 9865), the cursor of the next page when there is one. */
  readonly nextCursor?: string;
  readonly cursorPaging: boolean;
}

/**
 * The resource operations of one router configuration. Each validates the client's input, reads
 * and writes the store with optimistic concurrency (writes to one resource serialize, architecture §4b),
 * and delivers lifecycle events once the store has committed. Failures are thrown as `ScimError`s;
 * an unknown `resourceType` is a bug of the caller and throws a plain `Error`.
 *
 * @example
 * const outcome = await service.get({ context, resourceType: "User", id, members: false });
 */
export interface ResourceService {
  /** The resource types served, by id as registered. */
  readonly handlers: ReadonlyMap<string, TypeHandler>;
  /** Whether the store sorts (`StoreCapabilities.sort`); without it `sortBy` is ignored (RFC 7644 §3.4.2.3). */
  readonly canSort: boolean;
  /** Whether the store pages by cursor (`StoreCapabilities.cursor`, RFC 9865); without it a cursor is 400. */
  readonly canCursor: boolean;
  /**
   * Validates the body within the write limits, stores it under a fresh UUID v7, reports `created`
   * (and the initial members); or, under `existingUsers: "link"`, updates the user it names and
   * reports `linked`.
   */
  create(request: CreateResourceRequest): Promise<ResourceOutcome>;
  /** The resource, or 404. */
  get(request: GetResourceRequest): Promise<ResourceOutcome>;
  /** Replaces every attribute the client may write, and the members; an identical body writes nothing. */
  replace(request: ReplaceResourceRequest): Promise<ResourceOutcome>;
  /** Applies the operations atomically; a patch that changes nothing writes nothing and keeps the version. */
  patch(request: PatchResourceRequest): Promise<ResourceOutcome>;
  /** Deletes the resource (and its place in every group), or 404. */
  delete(request: DeleteResourceRequest): Promise<void>;
  /** One page: filter, sort, index or cursor paging, each parameter checked and clamped first. */
  list(request: ListResourcesRequest): Promise<ListOutcome>;
}
