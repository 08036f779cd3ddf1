/** A failed request, in words a person can act on; announced as it appears. */
import { ApiError } from "./api-client.js";

export function ErrorNotice({ error }: { readonly error: Error | undefined }) {
  if (!error) return null;
  const status = error instanceof ApiError && error.status > 0 ? ` (HTTP ${error.status})` : "";
  return (
    <p class="error" role="alert">
      {error.message}
      {status}
    </p>
  );
}
