/**
 * The problem responses an operation can give, derived from its traits (who may call it, whether
 * it has path parameters, a query or a body) plus those particular to it — so the documentation
 * lists every error status the router can answer, and nothing it cannot.
 */
import type { OperationDefinition } from "./operation-definition.js";

/** Problem statuses of `operation` with what each means there; 500 is every operation's `default`. */
export function problemStatuses(operation: OperationDefinition): Readonly<Record<number, string>> {
  const problems: Record<number, string> = {};
  const hasCursor = operation.query !== undefined && "cursor" in operation.query;
  if (operation.body !== undefined || (operation.query !== undefined && Object.keys(operation.query).length > 0)) {
    problems[400] = hasCursor
      ? "The request is invalid (`invalid-request`, with `errors` naming each field or parameter; a body that is not JSON is `malformed-request`), or the cursor is not valid for these filters (`invalid-cursor`)."
      : "The request is invalid (`invalid-request`, with `errors` naming each field or parameter; a body that is not JSON is `malformed-request`).";
  }
  if (operation.access !== "public") problems[401] = "No valid API key: missing, unknown, or of a disabled admin user (one body for all).";
  if (operation.access === "write") problems[403] = "The key may only read (role `viewer`), or the change is the operator's to make.";
  if (operation.access === "operator") problems[403] = "Only the operator key may do this.";
  if (operation.pathParameters !== undefined) problems[404] = "No such resource among the organizations the caller may see.";
  if (operation.body !== undefined) {
    problems[413] = "The body is larger than the limit.";
    problems[415] = "The body is not `application/json`.";
  }
  return { ...problems, ...operation.problems };
}
