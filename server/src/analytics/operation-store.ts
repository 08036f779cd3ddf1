/**
 * The asynchronous operations of the analytics store (spec §4.6): report jobs — their admission,
 * claims by the workers of every host, progress, rows and purge. Part of `AnalyticsStore`.
 */
import type { OrgScope } from "./org-scope.js";

/** The state of an asynchronous operation. */
export type OperationStatus = "queued" | "running" | "succeeded" | "failed";

/** A long-running request, e.g. a bulk report, polled at `GET /operations/{id}`. */
export interface Operation {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** What it does, e.g. `"campaign-users-report"` or `"simulation-users-report"`. */
  readonly kind: string;
  /** The organization whose data it reads; visibility follows it. */
  readonly orgId: string;
  /** The campaign or simulation it reports on. */
  readonly subjectId: string;
  /** `queued`, `running`, `succeeded` or `failed`. */
  readonly status: OperationStatus;
  /** Rows done and, once known, the total. */
  readonly progress: { readonly done: number; readonly total?: number };
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /** ISO 8601 time it started running; absent while queued. */
  readonly startedAt?: string;
  /** ISO 8601 time it succeeded or failed; absent until then. */
  readonly finishedAt?: string;
  /** Why it failed, for a person. */
  readonly error?: string;
  /**
   * What identifies identical requests (caller scope, kind, subject, filters), as a digest: a
   * request with the same key while this one is queued, running or freshly succeeded is given
   * this operation instead of a new one (`startOperation`). Absent: never reused.
   */
  readonly requestKey?: string;
  /** ISO 8601 time from which the operation and its report rows are gone (404, then purged). Absent: kept. */
  readonly expiresAt?: string;
  /** The worker (host) whose claim the job runs under (`claimOperation`); absent while unclaimed. */
  readonly ownerId?: string;
  /** ISO 8601 time of the owner's last heartbeat; a claim older than the lease may be taken over. */
  readonly heartbeatAt?: string;
  /** How many times the job was claimed and not given back (`releaseOperation`): more than one means earlier runs died with their host. */
  readonly attempts?: number;
}

/** The bounds and the freshness `startOperation` admits a report request under. */
export interface ReportAdmission {
  /** ISO 8601 time of the request: operations that expire at or before it count for nothing. */
  readonly now: string;
  /** A succeeded operation with the same `requestKey` finished at or after this time is reused. */
  readonly freshSince: string;
  /** Most queued + running operations of the organization; at it, the request is refused. */
  readonly maxActive: number;
  /** Most report rows the organization may keep (unexpired operations' `progress.done`); at it, refused. */
  readonly maxStoredRows: number;
}

/** What `startOperation` did. */
export type ReportStart =
  /** The new operation was stored, queued. */
  | { readonly outcome: "created"; readonly operation: Operation }
  /** An identical request's operation, queued, running or fresh, answers this one; nothing was stored. */
  | { readonly outcome: "reused"; readonly operation: Operation }
  /**
   * Nothing was stored: the organization is at a bound. `active`: `maxActive` jobs are queued or
   * running. `rows`: it keeps `maxStoredRows` rows; `retryAt` is when the first of them expires.
   */
  | { readonly outcome: "refused"; readonly bound: "active" | "rows"; readonly retryAt?: string };

/** A request to claim a report job (`claimOperation`). */
export interface OperationClaim {
  /** Who claims: one id per worker (host process), stable for its life. */
  readonly ownerId: string;
  /** ISO 8601 time of the claim; it becomes the first heartbeat. */
  readonly now: string;
  /** A claim whose heartbeat is older than this (the lease ran out) may be taken over. */
  readonly staleBefore: string;
  /** Only this operation; absent: the oldest claimable one. */
  readonly id?: string;
}

/** A change to an operation's state; unset fields stay as they are. */
export interface OperationUpdate {
  /** The new state. */
  readonly status?: OperationStatus;
  /** Rows done and, once known, the total. */
  readonly progress?: { readonly done: number; readonly total?: number };
  /** ISO 8601 time it started running. */
  readonly startedAt?: string;
  /** ISO 8601 time it succeeded or failed. */
  readonly finishedAt?: string;
  /** Why it failed, for a person. */
  readonly error?: string;
}

/** One row of a bulk report: flat, so it renders as JSON or as a CSV line. */
export type ReportRow = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Operations and their report rows in the analytics store. Every method resolves once its change is visible to every later call from any process sharing
 * the storage. `undefined`/`false` mean "no such thing in scope" — the HTTP layer renders both the
 * same 404, so another organization's data and nonexistent data are indistinguishable.
 */
export interface OperationStore {
  /** Stores a new operation. */
  createOperation(operation: Operation): Promise<void>;
  /** The operation, when its organization is in scope. */
  getOperation(scope: OrgScope, id: string): Promise<Operation | undefined>;
  /**
   * Applies a state change. With `ownerId`, only while that owner's claim holds (a worker whose
   * job was taken over must not overwrite the new owner's progress). True when applied.
   */
  updateOperation(id: string, update: OperationUpdate, ownerId?: string): Promise<boolean>;
  /**
   * Appends report rows after those already stored, in order. With `ownerId`, only while that
   * owner's claim holds, checked in the same transaction as the append, so rows of a job taken
   * over are never added to the new owner's. True when appended.
   */
  appendReportRows(operationId: string, rows: readonly ReportRow[], ownerId?: string): Promise<boolean>;
  /** The stored report rows in order, a page at a time, without loading them all. */
  readReportRows(operationId: string): AsyncIterable<readonly ReportRow[]>;
  /**
   * Admits a report request atomically (identical concurrent requests get one operation): the
   * unexpired operation of `operation.orgId` with the same `requestKey` that is queued, running,
   * or succeeded at or after `freshSince` (`reused`); else a refusal when the organization is at
   * one of the bounds (`refused`); else stores `operation` (`created`).
   */
  startOperation(operation: Operation, admission: ReportAdmission): Promise<ReportStart>;
  /**
   * Claims a report job for `claim.ownerId` — on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so
   * workers on several hosts never claim the same one and never wait on each other: an unexpired
   * operation that is queued and unclaimed, or whose owner's heartbeat is older than
   * `staleBefore` (its host died), or running without a heartbeat. In the same transaction its
   * report rows are deleted and its progress reset, so the new owner starts from zero and no row
   * is ever stored twice. `attempts` counts up; `heartbeatAt` is `now`. Undefined when none.
   */
  claimOperation(claim: OperationClaim): Promise<Operation | undefined>;
  /** Records that `ownerId` still runs the job; false when its claim was lost (taken over, or the operation is gone). */
  heartbeatOperation(id: string, ownerId: string, now: string): Promise<boolean>;
  /**
   * Gives up `ownerId`'s claim (a worker stopping, or its database unreachable), so another worker
   * may claim the job at once; the claim no longer counts in `attempts`.
   */
  releaseOperation(id: string, ownerId: string): Promise<void>;
  /**
   * Deletes operations that expired at or before `now` with their report rows, at most about
   * `maxRows` rows (and operations) in one call, so a purge never holds the storage for long;
   * resolves with how many it deleted (0: nothing expired is left).
   */
  purgeExpiredOperations(now: string, maxRows: number): Promise<number>;
}

/**
 * The members of `OperationStore` that run report jobs — admission, claims, fenced progress and
 * rows, the purge — apart from those that store and read operations.
 */
export type ReportJobStore = Pick<
  OperationStore,
  | "updateOperation"
  | "appendReportRows"
  | "startOperation"
  | "claimOperation"
  | "heartbeatOperation"
  | "releaseOperation"
  | "purgeExpiredOperations"
>;
