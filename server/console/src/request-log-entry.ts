/** An entry of the provisioning log as the read API renders it (scimkit's `RequestLogEntry`). */
export interface RequestLogEntry {
  readonly requestId: string;
  readonly orgId: string;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly scimType?: string;
  readonly detail?: string;
  readonly durationMs: number;
  readonly authenticated: boolean;
  readonly tokenId?: string;
  readonly clientAddress?: string;
  readonly userAgent?: string;
  readonly identityProvider: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  readonly bulkOperations?: number;
  readonly requestBody?: string;
  readonly requestBodyTruncated?: boolean;
  readonly requestBodyRefused?: RequestBodyRefusal;
  readonly responseBody?: string;
  readonly responseBodyTruncated?: boolean;
}

/** Why the service refused a request body (scimkit's `RequestBodyRefusal`). */
export type RequestBodyRefusal = "invalidJson" | "tooLarge" | "unsupportedMediaType" | "incomplete";

/** What the request pane says of a body the service refused, in the operator's words. */
export function refusalText(refusal: RequestBodyRefusal): string {
  switch (refusal) {
    case "invalidJson":
      return "The body was not valid JSON: shown as received, with anything like a secret masked.";
    case "tooLarge":
      return "The body was larger than the service accepts, so it was not read or kept.";
    case "unsupportedMediaType":
      return "The body was not JSON (its Content-Type or encoding), so it was not read or kept.";
    case "incomplete":
      return "The body never arrived whole (the client stopped sending), so it was not kept.";
  }
}

export const IDENTITY_PROVIDERS = ["entra", "okta", "onelogin", "google", "jumpcloud", "ping", "other"] as const;

/** A body as indented JSON when it parses (a truncated one does not), else as it is. */
export function pretty(body: string | undefined): string {
  if (body === undefined) return "";
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
