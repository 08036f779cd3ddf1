/**
 * The problem responses an operation can give, derived from its traits (who may call it, whether
 * it has path parameters, a query or a body) plus those particular to it — so the documentation
 * lists every error status the router can answer, and nothing it cannot.
 */
import type { OperationDefinition } from "./operation-definition.js";

/** Problem statuses of `operation` with what each means there; 500 is every operation's `default`. */
export function problemStatuses(operation: OperationDefinition): Readonly<Record<number, string>> {
  const problems: Record<number, string> = {};
  // Every operation refuses query parameters it does not define, so every one can be invalid.
  const reasons = ["the request is invalid (`invalid-request`, with `errors` naming each invalid, repeated or unknown field or parameter)"];
  if (operation.body !== undefined) reasons.push("the body is not JSON (`malformed-request`)");
  if (operation.pathParameters !== undefined) reasons.push("the path has a broken %-escape (`malformed-request`)");
  if (operation.query !== undefined && "cursor" in operation.query)
    reasons.push("the cursor is not valid for these filters (`invalid-cursor`)");
  problems[400] = `${reasons.join("; or ")}.`.replace(/^./, (first) => first.toUpperCase());
  if (operation.access === "setup") problems[401] = "No valid setup session: missing, unknown, or its link expired or was revoked.";
  else if (operation.access !== "public")
    problems[401] = "No valid API key: missing, unknown, or of a disabled admin user (one body for all).";
  // A setup link's session (issue 31) opens the setup operations only, and only it opens them.
  const setupOnly = "a setup link's session opens its organization's setup operations only";
  if (operation.access === "read") problems[403] = "A setup link's session opens its organization's setup operations only.";
  if (operation.access === "write")
    problems[403] = `The key may only read (role \`viewer\`), or the change is the operator's to make; or ${setupOnly}.`;
  if (operation.access === "operator") problems[403] = `Only the operator key may do this (${setupOnly}).`;
  if (operation.access === "setup") problems[403] = "The key is an API key: the setup operations take a setup link's session.";
  if (operation.pathParameters !== undefined) problems[404] = "No such resource among the organizations the caller may see.";
  // Only when the host sets `rateLimit`; keyed by API key, so public operations are never limited.
  if (operation.access !== "public")
    problems[429] = "This API key sent more requests than the host's rate limit allows (`rate-limited`, with `Retry-After`).";
  if (operation.body !== undefined) {
    problems[413] = "The body is larger than the limit.";
    problems[415] = "The body is not `application/json`.";
  }
  return { ...problems, ...operation.problems };
}
