/**
 * `scimkit/audit`: the audit trail (architecture §7, docs/security.md "Audit trail"). The router
 * hands every write's entry to its `onAudit` sink; `memoryAuditTrail` is a sink you can read back,
 * `sqlAuditTrail` (`scimkit/sql`) the one in the store's database. `handToSink`, `auditedId` and
 * `auditedTarget` write entries of your own — from an API beside SCIM, a job, a command — into the
 * same trail the way the router does: entries frozen, ids bounded, a failing sink reported to you
 * and never failing the request.
 */
export type { AuditEntry, AuditOperation, AuditSink } from "./audit-sink.js";
export type { AuditQuery, AuditRecord, AuditTrail } from "./audit-trail.js";
export { memoryAuditTrail } from "./memory-audit-trail.js";
export type { MemoryAuditTrailOptions } from "./memory-audit-trail.js";
export { auditedId, auditedTarget, handToSink } from "./hand-to-sink.js";
