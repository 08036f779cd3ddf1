/**
 * The audit trail of the writes the `scimkit` command makes (organizations, SCIM tokens, the
 * operator key, event receivers), in the same trail as the hosts' SCIM and operator API writes (`scimkit_audit`),
 * so an operator reading it at 3 a.m. sees a rotation done from a shell as well as one done over
 * HTTP. Entries say `via: "cli"` and carry no `tokenId`: whoever holds DATABASE_URL needs none.
 */
import { type AuditSink, auditedTarget } from "scimkit/audit";
import { CommandError } from "./command-error.js";

/** The operator API's operation names, after `cli.` (the trail's prefix for this writer). */
export type CliAuditOperation =
  | "cli.createOrganization"
  | "cli.updateOrganization"
  | "cli.suspendOrganization"
  | "cli.resumeOrganization"
  | "cli.deleteOrganization"
  | "cli.issueOrganizationToken"
  | "cli.rotateOrganizationToken"
  | "cli.revokeOrganizationToken"
  | "cli.rotateOperatorKey"
  | "cli.addOrganizationEventReceiver"
  | "cli.removeOrganizationEventReceiver"
  | "cli.rotateOrganizationEventSigningKey"
  | "cli.moveOrganization"
  | "cli.cancelRegionMove";

/** What one command write is, for its entry. */
export interface CommandWrite<T> {
  readonly operation: CliAuditOperation;
  /** The organization concerned; `""` for the operator key, which concerns none. */
  readonly orgId: string;
  readonly resourceType: "Organization" | "ScimToken" | "ApiKey" | "EventReceiver" | "EventSigningKey";
  /** The resource's id when the command names it; else read from the result of a success. */
  readonly resourceId?: string | ((result: T) => string);
  /** The outside address the write points the service at (`AuditEntry.target`): a receiver's URL. */
  readonly target?: string;
  /** The status the operator API answers the same success with (201 create, 200 change, 204 delete). */
  readonly status: 200 | 201 | 204;
}

/**
 * Runs `work` and records its outcome in `audit`: a success with `write.status`, a failure with
 * the API's status for it (404, 409; 500 for an unexpected error), then rethrows. A trail that
 * cannot be written after a success is reported on stderr, not as a failure: the write is done,
 * and a script that retried it would, say, issue a second token.
 */
export async function auditedCommandWrite<T>(audit: AuditSink, write: CommandWrite<T>, work: () => Promise<T>): Promise<T> {
  const target = auditedTarget(write.target);
  const entry = (outcome: "success" | "failure", status: number, resourceId: string | undefined) => ({
    orgId: write.orgId,
    operation: write.operation,
    resourceType: write.resourceType,
    ...(resourceId === undefined ? {} : { resourceId }),
    ...(target === undefined ? {} : { target }),
    at: new Date().toISOString(),
    outcome,
    status,
    via: "cli",
  });
  const named = typeof write.resourceId === "string" ? write.resourceId : undefined;
  let result: T;
  try {
    result = await work();
  } catch (error) {
    const status = error instanceof CommandError ? (error.status ?? 400) : 500;
    await audit.record(entry("failure", status, named)).catch((recordError: unknown) => {
      console.error(`scimkit: warning: the audit trail did not take this failure: ${String(recordError)}`);
    });
    throw error;
  }
  const resourceId = typeof write.resourceId === "function" ? write.resourceId(result) : named;
  try {
    await audit.record(entry("success", write.status, resourceId));
  } catch (recordError) {
    console.error(`scimkit: warning: done, but the audit trail did not take it: ${String(recordError)}`);
  }
  return result;
}
