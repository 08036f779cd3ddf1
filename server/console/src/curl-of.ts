/**
 * A request of the provisioning log as a curl command, to replay it by hand. The token is a
 * placeholder (the log never has it) and redacted values stay redacted.
 */
import type { RequestLogEntry } from "./analytics-api-types.js";

/** `text` in single quotes for a POSIX shell. */
function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function curlOf(entry: RequestLogEntry, origin: string = location.origin): string {
  const lines = [`curl -i -X ${entry.method} ${quoted(`${origin}${entry.path}`)}`, `  -H 'Authorization: Bearer <SCIM token>'`];
  if (entry.userAgent) lines.push(`  -H ${quoted(`User-Agent: ${entry.userAgent}`)}`);
  lines.push(`  -H ${quoted(`X-Request-Id: ${entry.requestId}-replay`)}`);
  if (entry.requestBody !== undefined) {
    lines.push(`  -H 'Content-Type: application/scim+json'`);
    lines.push(`  --data-raw ${quoted(entry.requestBody)}`);
  }
  return lines.join(" \\\n");
}
