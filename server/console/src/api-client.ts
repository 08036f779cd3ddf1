/**
 * The console's only way to the server: the analytics interface at `/analytics/v1`, with the
 * signed-in key (or the setup page's session) as `Authorization: Bearer` (never a cookie, so a
 * cross-site request carries nothing).
 */
import type { OrganizationList } from "./analytics-api-types.js";

/** A problem (RFC 9457) the analytics interface answered, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail === "" ? title : `${title}: ${detail}`);
    this.name = "ApiError";
  }
}

/** A page of a list operation: the shape the `…List` schemas share, with items `T`. */
export type Page<T> = Omit<OrganizationList, "data"> & { readonly data: readonly T[] };

/** Query parameters; undefined and empty values are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
}

const BASE = "/analytics/v1";

/** `path` with `query` appended. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** `segment` %-encoded for a path. */
export const seg = encodeURIComponent;

/** A client sending `key`; without one (the setup page opening its link), no `Authorization` at all. */
export function apiClient(key: string | undefined, onUnauthorized: () => void): ApiClient {
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${BASE}${path}`, {
        method,
        headers: {
          ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: "omit",
        cache: "no-store",
      });
    } catch {
      throw new ApiError(0, "The server did not answer", "Check that the host is running and reachable, then try again.");
    }
    if (response.status === 401) onUnauthorized();
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const problem = (json ?? {}) as { title?: unknown; detail?: unknown };
      throw new ApiError(
        response.status,
        typeof problem.title === "string" ? problem.title : `HTTP ${response.status}`,
        typeof problem.detail === "string" ? problem.detail : text.slice(0, 300),
      );
    }
    return json as T;
  };
  return {
    get: (path, query) => send("GET", withQuery(path, query)),
    post: (path, body) => send("POST", path, body),
    patch: (path, body) => send("PATCH", path, body),
    delete: (path) => send("DELETE", path),
  };
}
