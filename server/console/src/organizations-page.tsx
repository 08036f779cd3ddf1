/**
 * Organizations: list, create with a chosen id, suspend and resume; one organization's SCIM base
 * URL, compatibility profile, SCIM tokens (issue, rotate, revoke; each secret shown once) and
 * RFC 9967 event receivers.
 */
import { useState } from "preact/hooks";
import type {
  Organization,
  OrganizationCreated,
  OrganizationList as OrganizationPage,
  Token,
  TokenIssued,
  TokenList,
} from "./analytics-api-types.js";
import { seg } from "./api-client.js";
import { useApi } from "./context.js";
import { CopyButton } from "./copy-button.js";
import { ErrorNotice } from "./error-notice.js";
import { EventReceiversSection } from "./event-receivers-section.js";
import { SetupLinksSection } from "./setup-links-section.js";
import { scimBaseUrlOf, when } from "./organization.js";
import { href, onLinkClick, type Place } from "./router.js";
import { SecretOnce } from "./secret-once.js";
import { toError, useAsync } from "./use-async.js";

const PROFILES = ["generic", "strict", "entra", "okta", "google", "onelogin", "jumpcloud", "ping"] as const;

export function OrganizationsPage({ place }: { readonly place: Place }) {
  const id = /^\/organizations\/([^/]+)/.exec(place.path)?.[1];
  return id === undefined ? <OrganizationList /> : <OrganizationDetail id={decodeURIComponent(id)} />;
}

function OrganizationList() {
  const api = useApi();
  const list = useAsync(() => api.get<OrganizationPage>("/organizations", { limit: 1000 }), [api]);
  const [name, setName] = useState("");
  const [id, setId] = useState("");
  const [created, setCreated] = useState<OrganizationCreated>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.post<OrganizationCreated>("/organizations", {
        name: name.trim(),
        ...(id.trim() === "" ? {} : { id: id.trim() }),
      });
      setCreated(answer);
      setName("");
      setId("");
      list.reload();
    } catch (caught) {
      setError(toError(caught));
    } finally {
      setBusy(false);
    }
  };
  const setStatus = async (organization: Organization, status: Organization["status"]): Promise<void> => {
    setError(undefined);
    try {
      await api.patch(`/organizations/${seg(organization.id)}`, { status });
      list.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };
  return (
    <>
      <h1>Organizations</h1>
      <section aria-labelledby="create-title" class="panel">
        <h2 id="create-title">Create an organization</h2>
        <form onSubmit={create} class="inline-form">
          <div class="field">
            <label for="org-name">Name</label>
            <input id="org-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="org-id">Id (optional)</label>
            <input
              id="org-id"
              value={id}
              pattern="[A-Za-z0-9._~\-]{1,64}"
              aria-describedby="org-id-help"
              onInput={(event) => setId(event.currentTarget.value)}
            />
            <span id="org-id-help" class="hint">
              Letters, digits, <code>. _ ~ -</code>; it is the <code>{"{orgId}"}</code> of the SCIM URL. Empty: a UUID.
            </span>
          </div>
          <button type="submit" disabled={busy}>
            Create
          </button>
        </form>
        {created ? (
          <div class="created">
            <p>
              Created <strong>{created.organization.name}</strong> ({created.organization.id})
              {created.scim.region ? <> in region {created.scim.region}, which holds all its data</> : null}. SCIM base URL:{" "}
              <code data-testid="created-base-url">{created.scim.baseUrl}</code> <CopyButton text={created.scim.baseUrl} label="Copy URL" />
            </p>
            <SecretOnce title="Its first SCIM token" secret={created.scim.token} onDismiss={() => setCreated(undefined)} />
          </div>
        ) : null}
      </section>
      <ErrorNotice error={error ?? list.error} />
      <section class="table-wrap" aria-label="Organizations">
        <table>
          <caption class="visually-hidden">Organizations the key sees</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Status</th>
              <th scope="col">Profile</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.value?.data ?? []).map((organization) => (
              <tr key={organization.id}>
                <td>
                  <a href={href(`/organizations/${seg(organization.id)}`)} onClick={onLinkClick}>
                    {organization.name}
                  </a>
                </td>
                <td>
                  <code>{organization.id}</code>
                </td>
                <td>
                  <span class={`badge ${organization.status}`}>{organization.status}</span>
                </td>
                <td>{organization.compatibility ?? "generic"}</td>
                <td>{when(organization.createdAt)}</td>
                <td>
                  {organization.status === "active" ? (
                    <button type="button" class="secondary" onClick={() => setStatus(organization, "suspended")}>
                      Suspend <span class="visually-hidden">{organization.name}</span>
                    </button>
                  ) : (
                    <button type="button" class="secondary" onClick={() => setStatus(organization, "active")}>
                      Resume <span class="visually-hidden">{organization.name}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {list.loading && !list.value ? <p>Loading…</p> : null}
    </>
  );
}

function OrganizationDetail({ id }: { readonly id: string }) {
  const api = useApi();
  const organization = useAsync(() => api.get<Organization>(`/organizations/${seg(id)}`), [api, id]);
  const tokens = useAsync(() => api.get<TokenList>(`/organizations/${seg(id)}/tokens`), [api, id]);
  const [secret, setSecret] = useState<{ title: string; value: string }>();
  const [label, setLabel] = useState("");
  const [error, setError] = useState<Error>();
  const [said, setSaid] = useState("");
  const act = async (what: () => Promise<void>, done: string): Promise<void> => {
    setError(undefined);
    setSaid("");
    try {
      await what();
      setSaid(done);
      tokens.reload();
      organization.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };
  const issue = (event: Event): void => {
    event.preventDefault();
    void act(async () => {
      const answer = await api.post<TokenIssued>(`/organizations/${seg(id)}/tokens`, {
        ...(label.trim() === "" ? {} : { label: label.trim() }),
      });
      setSecret({ title: `New token ${answer.token.label ?? answer.token.id}`, value: answer.secret });
      setLabel("");
    }, "Token issued.");
  };
  const rotate = (token: Token): void => {
    void act(async () => {
      const answer = await api.post<TokenIssued>(`/organizations/${seg(id)}/tokens/${seg(token.id)}/rotate`, {});
      setSecret({ title: `New secret of ${token.label ?? token.id}`, value: answer.secret });
    }, "Token rotated: the old secret is refused from the next request on.");
  };
  const revoke = (token: Token): void => {
    if (!confirm(`Revoke ${token.label ?? token.id}? Requests with it are refused from the next one on.`)) return;
    void act(() => api.delete(`/organizations/${seg(id)}/tokens/${seg(token.id)}`), "Token revoked.");
  };
  const setProfile = (compatibility: string): void => {
    void act(() => api.patch(`/organizations/${seg(id)}`, { compatibility }), `Profile set to ${compatibility}.`);
  };
  const org = organization.value;
  const baseUrl = scimBaseUrlOf(id);
  return (
    <>
      <p>
        <a href={href("/organizations")} onClick={onLinkClick}>
          ← All organizations
        </a>
      </p>
      <h1>{org?.name ?? id}</h1>
      <ErrorNotice error={organization.error} />
      {org ? (
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{org.id}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <span class={`badge ${org.status}`}>{org.status}</span>
          </dd>
          <dt>SCIM base URL</dt>
          <dd>
            <code data-testid="base-url">{baseUrl}</code> <CopyButton text={baseUrl} label="Copy URL" />
          </dd>
          <dt>
            <label for="profile">Compatibility profile</label>
          </dt>
          <dd>
            <select id="profile" value={org.compatibility ?? "generic"} onChange={(event) => setProfile(event.currentTarget.value)}>
              {PROFILES.map((profile) => (
                <option key={profile} value={profile}>
                  {profile}
                </option>
              ))}
            </select>
          </dd>
          <dt>Links</dt>
          <dd>
            <a href={href("/log", { org: id })} onClick={onLinkClick}>
              Provisioning log
            </a>{" "}
            ·{" "}
            <a href={href("/directory", { org: id })} onClick={onLinkClick}>
              Directory
            </a>
          </dd>
        </dl>
      ) : null}
      <p class="status-line" role="status">
        {said}
      </p>
      <ErrorNotice error={error} />
      {secret ? <SecretOnce title={secret.title} secret={secret.value} onDismiss={() => setSecret(undefined)} /> : null}
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">SCIM tokens</h2>
        <form onSubmit={issue} class="inline-form">
          <div class="field">
            <label for="token-label">Label of a new token</label>
            <input id="token-label" value={label} placeholder="Okta" onInput={(event) => setLabel(event.currentTarget.value)} />
          </div>
          <button type="submit">Issue token</button>
        </form>
        <ErrorNotice error={tokens.error} />
        <section class="table-wrap" aria-label="SCIM tokens">
          <table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Prefix</th>
                <th scope="col">Source</th>
                <th scope="col">Created</th>
                <th scope="col">Rotated</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(tokens.value?.data ?? []).map((token) => (
                <tr key={token.id}>
                  <td>{token.label ?? token.id}</td>
                  <td>
                    <code>{token.prefix ?? "—"}</code>
                  </td>
                  <td>{token.source}</td>
                  <td>{when(token.createdAt)}</td>
                  <td>{when(token.rotatedAt)}</td>
                  <td>{when(token.lastUsedAt)}</td>
                  <td>
                    {token.source === "issued" ? (
                      <div class="actions">
                        <button type="button" class="secondary" onClick={() => rotate(token)}>
                          Rotate <span class="visually-hidden">{token.label ?? token.id}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => revoke(token)}>
                          Revoke <span class="visually-hidden">{token.label ?? token.id}</span>
                        </button>
                      </div>
                    ) : (
                      <span class="hint">set in the host's environment</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </section>
      <SetupLinksSection orgId={id} />
      <EventReceiversSection orgId={id} />
    </>
  );
}
