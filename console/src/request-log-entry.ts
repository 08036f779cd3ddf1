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
  readonly responseBody?: string;
  readonly responseBodyTruncated?: boolean;
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
