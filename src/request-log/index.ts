/**
 * `scimkit/request-log`: the provisioning log (docs/configuration.md "Provisioning log",
 * docs/security.md "Provisioning log"). The router writes one redacted entry per request to its
 * `requestLog`; a `ReadableRequestLog` is also read back, page by page, by organization. It holds
 * the contracts, `memoryRequestLog` (the in-memory reference; `sqlRequestLog` in `scimkit/sql`
 * keeps the log in the store's database), and the identity providers an entry is attributed to
 * by its `User-Agent`, for filters and reports of your own. Check a log of your own with
 * `describeRequestLogConformance` from `scimkit/testkit`.
 */
export type { RequestBodyRefusal, RequestLog, RequestLogEntry, UnauthenticatedRequestLogEntry } from "./request-log.js";
export type {
  ReadableRequestLog,
  RequestLogPage,
  RequestLogQuery,
  StatusClass,
  UnauthenticatedRequestLogPage,
  UnauthenticatedRequestLogQuery,
} from "./readable-request-log.js";
export { memoryRequestLog } from "./memory-request-log.js";
export type { MemoryRequestLogOptions } from "./memory-request-log.js";
export { IDENTITY_PROVIDERS, identityProviderOf } from "./identity-provider-of.js";
export type { IdentityProvider } from "./identity-provider-of.js";
