/**
 * What a handler of the analytics router gets: the request's validated input, who is calling and
 * what it may see — so handlers never parse, authenticate or scope anything themselves.
 */
import type { Request, Response } from "express";
import type { OrgScope, Page, PageRequest } from "./analytics-store.js";
import type { ApiKeyCaller } from "./api-keys.js";
import type { AnalyticsOperationId } from "./definitions/analytics-operations.js";

/** One request to one operation, after authentication and validation. */
export interface AnalyticsCall {
  readonly request: Request;
  readonly response: Response;
  /** The path parameters, matched against their schemas. */
  readonly params: Readonly<Record<string, string>>;
  /** The query parameters, typed (`limit` a number, `active` a boolean) and validated. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The body, validated against the operation's schema; `undefined` for operations without one. */
  readonly body: unknown;
  /** Who is calling; `undefined` on public operations. */
  readonly caller: ApiKeyCaller | undefined;
  /** What the caller may see: every organization for the operator, its own for an admin user, none when public. */
  readonly scope: OrgScope;
  /** The absolute URL the router is mounted at, e.g. `https://host/analytics/v1`. */
  readonly baseUrl: string;
  /** The page the query asks for (`limit`, and the position sealed in `cursor`); 400 `invalid-cursor` when it is not ours. */
  page(): PageRequest;
  /**
   * Sends `{ data, nextCursor }` for `page`, each item rendered by `render`, and the members of
   * `extra` beside them (a list's own counts).
   */
  sendPage<T>(page: Page<T>, render: (item: T) => unknown, extra?: Readonly<Record<string, unknown>>): void;
}

/** Handles one operation. */
export type AnalyticsHandler = (call: AnalyticsCall) => Promise<void>;

/** A handler for every operation of the definitions: the compiler checks none is missing. */
export type AnalyticsHandlers = Readonly<Record<AnalyticsOperationId, AnalyticsHandler>>;
