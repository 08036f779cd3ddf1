/**
 * Sign in with an analytics API key (the operator key, or an admin user's key from accepting an
 * invitation). The key is checked against the server before the console opens.
 */
import { useState } from "preact/hooks";
import { ApiError, apiClient } from "./api-client.js";
import type { OrganizationList } from "./analytics-api-types.js";
import { toError } from "./use-async.js";

export function SignInPage({ onSignedIn }: { readonly onSignedIn: (key: string, remember: boolean) => void }) {
  const [key, setKey] = useState("");
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === "") {
      setError("Paste your API key first.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await apiClient(trimmed, () => undefined).get<OrganizationList>("/organizations", { limit: 1 });
      onSignedIn(trimmed, remember);
    } catch (caught) {
      const failure = toError(caught);
      setError(
        failure instanceof ApiError && failure.status === 401
          ? "This key was refused. Use the operator key the host printed on its first start (scimkit_ak_…), or an admin user's key."
          : failure.message,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>scimkit operator console</h1>
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            placeholder="scimkit_ak_…"
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
            aria-invalid={error !== undefined}
            aria-describedby={error === undefined ? undefined : "sign-in-error"}
          />
        </div>
        <div class="check">
          <input id="remember" type="checkbox" checked={remember} onChange={(event) => setRemember(event.currentTarget.checked)} />
          <label for="remember">Keep me signed in in this tab (until it closes)</label>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {error === undefined ? null : (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p id="sign-in-help" class="hint">
        The key goes only to this server's analytics interface, as an <code>Authorization</code> header. It is kept in this page's memory,
        or in this tab's session storage if you ask; never in a cookie.
      </p>
    </main>
  );
}
