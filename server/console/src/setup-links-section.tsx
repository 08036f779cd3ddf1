/**
 * An organization's setup links (issue 31), on its page in the console: a form to make one for the
 * customer's IT admin — for one identity provider or any, valid for a chosen time — whose URL is
 * shown once to copy and send; and the links made, with what became of each (opened, expired,
 * revoked, the token its page revealed), each revocable.
 */
import { useState } from "preact/hooks";
import type { SetupLink, SetupLinkCreated, SetupLinkList } from "./analytics-api-types.js";
import { seg } from "./api-client.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { when } from "./organization.js";
import { SecretOnce } from "./secret-once.js";
import { toError, useAsync } from "./use-async.js";

type Provider = NonNullable<SetupLink["identityProvider"]>;

const PROVIDERS: readonly (readonly [Provider, string])[] = [
  ["entra", "Microsoft Entra ID"],
  ["okta", "Okta"],
  ["google", "Google Workspace"],
  ["onelogin", "OneLogin"],
  ["jumpcloud", "JumpCloud"],
  ["ping", "Ping Identity"],
  ["other", "Other SCIM 2.0 client"],
];

/** How long a link may be valid, in the operator's words: minutes each. */
const VALIDITY: readonly (readonly [number, string])[] = [
  [60, "1 hour"],
  [24 * 60, "1 day"],
  [3 * 24 * 60, "3 days"],
  [7 * 24 * 60, "7 days"],
];

/** Where a link stands, in plain words. */
function stateOf(link: SetupLink, now: number): string {
  if (link.revokedAt !== undefined) return `revoked ${when(link.revokedAt)}`;
  if (link.usedAt !== undefined) return `opened ${when(link.usedAt)}${Date.parse(link.expiresAt) <= now ? ", session ended" : ""}`;
  if (Date.parse(link.expiresAt) <= now) return "expired unopened";
  return "not opened yet";
}

export function SetupLinksSection({ orgId }: { readonly orgId: string }) {
  const api = useApi();
  const path = `/organizations/${seg(orgId)}/setup-links`;
  const links = useAsync(() => api.get<SetupLinkList>(path), [api, path]);
  const [provider, setProvider] = useState<Provider | "">("");
  const [minutes, setMinutes] = useState(3 * 24 * 60);
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState<Error>();
  const [said, setSaid] = useState("");

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setSaid("");
    try {
      const answer = await api.post<SetupLinkCreated>(path, {
        ...(provider === "" ? {} : { identityProvider: provider }),
        expiresInMinutes: minutes,
      });
      setCreated(answer.url);
      links.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };
  const revoke = async (link: SetupLink): Promise<void> => {
    if (!confirm("Revoke this setup link? It opens nothing from now on, and a page opened with it stops.")) return;
    setError(undefined);
    setSaid("");
    try {
      await api.delete(`${path}/${seg(link.id)}`);
      setSaid("Setup link revoked. The token its page revealed stays valid: revoke it under SCIM tokens if needed.");
      links.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };
  const now = Date.now();

  return (
    <section aria-labelledby="setup-links-title" data-testid="setup-links">
      <h2 id="setup-links-title">Setup links</h2>
      <p class="hint">
        A one-time link for the customer's IT admin to connect their identity provider themselves: it opens this organization's setup page
        once, without any other credential, until it expires or is revoked.
      </p>
      <form onSubmit={create} class="inline-form" data-testid="setup-link-form">
        <div class="field">
          <label for="setup-link-provider">Identity provider</label>
          <select id="setup-link-provider" value={provider} onChange={(event) => setProvider(event.currentTarget.value as Provider | "")}>
            <option value="">Let the IT admin choose</option>
            {PROVIDERS.map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="setup-link-validity">Valid for</label>
          <select id="setup-link-validity" value={String(minutes)} onChange={(event) => setMinutes(Number(event.currentTarget.value))}>
            {VALIDITY.map(([value, words]) => (
              <option key={value} value={String(value)}>
                {words}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Create a setup link</button>
      </form>
      {created ? <SecretOnce title="The setup link" secret={created} onDismiss={() => setCreated(undefined)} /> : null}
      <p class="status-line" role="status">
        {said}
      </p>
      <ErrorNotice error={error ?? links.error} />
      {(links.value?.data.length ?? 0) > 0 ? (
        <section class="table-wrap" aria-label="Setup links">
          <table>
            <caption class="visually-hidden">This organization's setup links, the most recent first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Identity provider</th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                <th scope="col">Token revealed</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {links.value?.data.map((link) => (
                <tr key={link.id} data-testid={`setup-link-${link.id}`}>
                  <td>{when(link.createdAt)}</td>
                  <td>{PROVIDERS.find(([value]) => value === link.identityProvider)?.[1] ?? "any"}</td>
                  <td>{when(link.expiresAt)}</td>
                  <td data-testid="setup-link-state">{stateOf(link, now)}</td>
                  <td>{link.tokenId === undefined ? "—" : <code>{link.tokenId}</code>}</td>
                  <td>
                    {link.revokedAt === undefined ? (
                      <button type="button" class="secondary" onClick={() => revoke(link)}>
                        Revoke <span class="visually-hidden">the link created {when(link.createdAt)}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : links.value ? (
        <p data-testid="no-setup-links">No setup link has been made for this organization.</p>
      ) : null}
    </section>
  );
}
