/**
 * The audit extension point: every write the SCIM router attempts for an authenticated client —
 * through the resource endpoints and through each operation of `/Bulk` — is handed to an
 * `AuditSink` with its outcome, success or failure, before the response is sent. scimkit ships
 * `memoryAuditTrail()` and, in `scimkit/sql`, `sqlAuditTrail()`; send entries anywhere else (a
 * SIEM, a log pipeline) by implementing this interface.
 */

/**
 * What a write of the SCIM router attempted: `create` (POST), `replace` (PUT), `patch` (PATCH),
 * `delete` (DELETE); `bulk` only for a `POST /Bulk` refused as a whole before any of its
 * operations ran.
 */
export type AuditOperation = "create" | "replace" | "patch" | "delete" | "bulk";

/**
 * One write attempt and its outcome. Entries carry ids, never attribute values, tokens or error
 * details: an audit store holds who did what to which resource, not the personal data itself.
 *
 * `Operation` is what the writer names its operations: the SCIM router's entries are
 * `AuditEntry<AuditOperation>`. A sink receives any writer's (`AuditEntry`, any string): another
 * router sharing the sink and its trail — an API of the host's beside SCIM, or
 * `scimkit/analytics` — names its own operations, with a prefix of its own (`analytics.…`), so
 * one trail holds both without a clash.
 */
export interface AuditEntry<Operation extends string = string> {
  /**
   * The organization written to (the one the request's token was verified for). A writer whose
   * operation concerns no organization in particular records `""`: the trail keeps those under
   * `""`.
   */
  readonly orgId: string;
  /**
   * `Principal.tokenId` of the credential used, e.g. the hashed token store's record id (another
   * writer's own credential id). Absent when there is none (the verifier gives none, or the route
   * is public). Never the token, nor its hash.
   */
  readonly tokenId?: string;
  /** What was attempted: one of `AuditOperation` for the SCIM router. */
  readonly operation: Operation;
  /**
   * The resource type id (`User`, `Group`, …, or another writer's own). Absent for a `bulk` entry
   * and for a Bulk operation whose path names no resource type of the service.
   */
  readonly resourceType?: string;
  /**
   * The id of the resource: the one assigned by a successful create, else the one the client
   * named in the path. Absent for a failed create, for a path without one, and for an id longer
   * than 256 characters (no resource has one).
   */
  readonly resourceId?: string;
  /** ISO 8601 time the outcome was known. */
  readonly at: string;
  /** `success` for a 2xx outcome, `failure` otherwise. */
  readonly outcome: "success" | "failure";
  /**
   * The HTTP status of the outcome. For a success, the operation's own status (201 create, 200
   * replace and patch, 204 delete), even when a PATCH of a group answers 204; 200 for a create that
   * linked an existing user (`existingUsers: "link"`), whose id is then `resourceId`.
   */
  readonly status: number;
  /** The RFC 7644 §3.12 `scimType` of a failure, when it has one. */
  readonly scimType?: string;
  /**
   * Through what the write came: for the SCIM router, `request` for the resource endpoints and
   * `bulk` for `POST /Bulk` and its operations; another writer names itself (`analytics`).
   */
  readonly via: string;
  /** The Bulk operation's `bulkId`, when the client gave one (at most 256 characters are kept). */
  readonly bulkId?: string;
  /**
   * The outside address the write pointed the service at, when it did: an RFC 9967 event
   * receiver's URL. At most `MAX_AUDITED_TARGET_LENGTH` (2,048) characters are kept.
   */
  readonly target?: string;
}

/**
 * Receives the audit trail of a router (`ScimRouterOptions.onAudit`).
 *
 * @example
 * const sink: AuditSink = {
 *   async record(entry) {
 *     siem.send({ source: "scim", ...entry });
 *   },
 * };
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, onAudit: sink }));
 */
export interface AuditSink {
  /**
   * Keeps one entry.
   *
   * Contract:
   * - Called once per write attempt, after the store has committed or refused it, and awaited
   *   before the response is sent: an acknowledged write has been handed to the sink. The calls
   *   of concurrent requests may interleave.
   * - A rejection never fails or undoes the request (the write has already happened or not); it
   *   is reported to the router's `onError`. Retry or buffer inside the sink if entries must
   *   survive an outage of its storage.
   * - Not called for requests refused before authentication (401) or by the rate limit (429):
   *   neither names a verified organization's write, and recording them would let a flood of
   *   them write to the audit store.
   * - The entry is frozen; keep it as it is.
   *
   * @param entry The write attempt and its outcome.
   */
  record(entry: AuditEntry): Promise<void>;
}
