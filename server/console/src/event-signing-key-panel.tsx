/**
 * The key that signs an organization's Security Event Tokens (issue 20): its id, the JWKS URL
 * receivers verify with (to copy into a receiver's configuration), and a button that rotates it
 * after asking. A rotation keeps the replaced public key in the JWKS for the retention, so SETs
 * already signed still verify; the panel says so. Shown only where the host delivers events.
 */
import { useState } from "preact/hooks";
import type { EventSigningKey, EventSigningKeyRotated } from "./analytics-api-types.js";
import { seg } from "./api-client.js";
import { useApi } from "./context.js";
import { CopyButton } from "./copy-button.js";
import { ErrorNotice } from "./error-notice.js";
import { toError, useAsync } from "./use-async.js";

export function EventSigningKeyPanel({ orgId }: { readonly orgId: string }) {
  const api = useApi();
  const path = `/organizations/${seg(orgId)}/event-signing-key`;
  const key = useAsync(() => api.get<EventSigningKey>(path), [api, path]);
  const [error, setError] = useState<Error>();
  const [said, setSaid] = useState("");

  const rotate = async (): Promise<void> => {
    if (
      !confirm(
        "Rotate the signing key? Events are signed with a new key from now on; receivers that fetch the JWKS verify both, as the old public key stays in it for a while.",
      )
    )
      return;
    setError(undefined);
    setSaid("");
    try {
      const answer = await api.post<EventSigningKeyRotated>(`${path}/rotate`, {});
      setSaid(`Signing key rotated: events are now signed with ${answer.kid}.`);
      key.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };

  const value = key.value;
  const previous = value ? value.jwks.keys.length - 1 : 0;
  return (
    <div data-testid="event-signing-key">
      <h3>Signing key</h3>
      {value ? (
        <dl class="facts">
          <dt>Key id</dt>
          <dd>
            <code data-testid="event-signing-key-id">{value.kid}</code>
            {previous > 0 ? (
              <div class="hint">
                The JWKS also serves {previous} replaced key{previous === 1 ? "" : "s"}, so events signed before a rotation still verify.
              </div>
            ) : null}
          </dd>
          <dt>JWKS URL</dt>
          <dd>
            <code data-testid="event-jwks-url">{value.jwksUrl}</code> <CopyButton text={value.jwksUrl} label="Copy JWKS URL" />
          </dd>
        </dl>
      ) : null}
      <button type="button" class="secondary" onClick={() => void rotate()} disabled={value === undefined}>
        Rotate signing key
      </button>
      <p class="status-line" role="status">
        {said}
      </p>
      <ErrorNotice error={error ?? key.error} />
    </div>
  );
}
