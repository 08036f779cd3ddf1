/**
 * The setup page (issue 31, point 2) at `/console/setup`, the customer's IT admin's: with the
 * one-time link the operator or an organization's admin sent, they choose the identity provider
 * (the organization's compatibility profile follows), fill in the fields its admin screen asks for,
 * take the SCIM token shown once, and watch its first requests arrive. No API key: the link's code
 * is exchanged for a setup session that opens this organization's setup and nothing else.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Setup, SetupIdentityProvider, SetupSession, SetupToken } from "./analytics-api-types.js";
import { type ApiClient, ApiError, apiClient } from "./api-client.js";
import { CopyButton } from "./copy-button.js";
import { ErrorNotice } from "./error-notice.js";
import { guideOf, PROVIDER_GUIDES, type ProviderField, type ProviderGuide } from "./identity-provider-fields.js";
import { when } from "./organization.js";
import { SecretOnce } from "./secret-once.js";
import { WaitingForRequests } from "./setup-requests.js";
import { storedSetupSession, storeSetupSession, takeSetupCode } from "./setup-session.js";
import { toError } from "./use-async.js";

type Phase =
  | { readonly kind: "opening" }
  /** The exchange failed otherwise (no answer, a 429, a 5xx): the code may still be unused, so it can be tried again. */
  | { readonly kind: "unreachable"; readonly error: Error }
  /** Nothing to open, and why. */
  | { readonly kind: "gone"; readonly why: string }
  | { readonly kind: "open"; readonly session: string; readonly notice?: string };

const NO_LINK =
  "This page opens with a setup link, and this address has none. Open the whole link you were sent. A link opens once: if you opened it in another tab or browser, go on there.";
/** A code too long to be one (400), in the words the server's 404 has for a code it never issued. */
const NOT_A_LINK = "This is not a setup link this service issued: check that the whole link was copied.";

/** Why a session the server now refuses (401) ended: its link expired or was revoked, and the server says neither. */
function endedWhy(expiresAt: string | undefined): string {
  if (expiresAt === undefined) return "This setup has ended: its link has expired or was revoked. Ask whoever sent it for a new one.";
  return Date.parse(expiresAt) <= Date.now()
    ? `This setup has ended: its link expired at ${when(expiresAt)}. Ask whoever sent it for a new one.`
    : "This setup has ended: its link was revoked. Ask whoever sent it for a new one.";
}

export function SetupPage({ code: first }: { readonly code: string | undefined }) {
  const [code, setCode] = useState(first);
  const [phase, setPhase] = useState<Phase>(() => {
    if (first !== undefined) return { kind: "opening" };
    const stored = storedSetupSession();
    return stored === undefined ? { kind: "gone", why: NO_LINK } : { kind: "open", session: stored };
  });
  const [attempt, setAttempt] = useState(0);
  // A link pasted into this tab's address bar while the page is open only changes the fragment: no
  // reload, so the page takes the code out of the address itself.
  useEffect(() => {
    const arrived = (): void => {
      const next = takeSetupCode();
      if (next === undefined) return;
      setPhase({ kind: "opening" });
      setCode(next);
      setAttempt((value) => value + 1);
    };
    addEventListener("hashchange", arrived);
    return () => removeEventListener("hashchange", arrived);
  }, []);
  useEffect(() => {
    if (code === undefined) return;
    apiClient(undefined, () => undefined)
      .post<SetupSession>("/setup/session", { code })
      .then(
        (opened) => {
          storeSetupSession(opened.session);
          setPhase({ kind: "open", session: opened.session });
        },
        (caught: unknown) => {
          const failure = toError(caught);
          if (!(failure instanceof ApiError) || ![400, 404, 410].includes(failure.status)) {
            setPhase({ kind: "unreachable", error: failure });
            return;
          }
          const why = failure.status === 400 ? NOT_A_LINK : failure.detail === "" ? failure.message : failure.detail;
          // The same tab opening its link again (the e-mail clicked twice) keeps the setup it has;
          // the page names the organization, so a session of another one is not taken for this link's.
          const stored = storedSetupSession();
          setPhase(
            stored === undefined
              ? { kind: "gone", why }
              : {
                  kind: "open",
                  session: stored,
                  notice: `The link in the address opened nothing: ${why} This tab's setup, opened earlier, goes on below.`,
                },
          );
        },
      );
  }, [code, attempt]);

  if (phase.kind === "gone") return <SetupGone why={phase.why} />;
  if (phase.kind === "open") {
    return (
      <SetupGuide
        // A new session (another link pasted in) starts from nothing: no token of the last one stays on screen.
        key={phase.session}
        session={phase.session}
        notice={phase.notice}
        onEnded={(why) => {
          storeSetupSession(undefined);
          setPhase({ kind: "gone", why });
        }}
      />
    );
  }
  return (
    <SetupFrame title="Identity provider setup">
      <h1>Identity provider setup</h1>
      {phase.kind === "opening" ? (
        <p role="status">Opening your setup link…</p>
      ) : (
        <>
          <ErrorNotice error={phase.error} />
          <button
            type="button"
            onClick={() => {
              setPhase({ kind: "opening" });
              setAttempt((value) => value + 1);
            }}
          >
            Try again
          </button>
        </>
      )}
    </SetupFrame>
  );
}

/** The frame of every state of the page: no console navigation, no sign-out — there is no sign-in. */
function SetupFrame({ title, children }: { readonly title: string; readonly children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · scimkit`;
  }, [title]);
  return (
    <>
      <header class="top">
        <span class="brand">scimkit · identity provider setup</span>
      </header>
      <main id="main" class="setup">
        {children}
      </main>
    </>
  );
}

/** A link that opens nothing: why, and nothing else to do here. */
function SetupGone({ why }: { readonly why: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A setup that ends mid-way replaces the page: the focus goes to what it now says.
  useEffect(() => heading.current?.focus(), []);
  return (
    <SetupFrame title="This setup link cannot be used">
      <h1 ref={heading} tabIndex={-1}>
        This setup link cannot be used
      </h1>
      <p data-testid="setup-gone">{why}</p>
    </SetupFrame>
  );
}

/**
 * The guide of the identity provider chosen, once the organization has its profile: a provider the
 * link only suggests (its creator's `identityProvider`) gives the profile when chosen here, not before.
 */
function chosenGuide(setup: Setup): ProviderGuide | undefined {
  if (setup.identityProvider === undefined) return undefined;
  const guide = guideOf(setup.identityProvider);
  return setup.organization.compatibility === guide.profile ? guide : undefined;
}

function SetupGuide({
  session,
  notice,
  onEnded,
}: {
  readonly session: string;
  readonly notice: string | undefined;
  readonly onEnded: (why: string) => void;
}) {
  const expiresAt = useRef<string | undefined>(undefined);
  const ended = useRef(onEnded);
  ended.current = onEnded;
  const api = useMemo(() => apiClient(session, () => ended.current(endedWhy(expiresAt.current))), [session]);
  const [setup, setSetup] = useState<Setup>();
  const [error, setError] = useState<Error>();
  const [token, setToken] = useState<SetupToken>();

  const load = async (): Promise<void> => {
    try {
      const answer = await api.get<Setup>("/setup");
      expiresAt.current = answer.expiresAt;
      setSetup(answer);
    } catch (caught) {
      setError(toError(caught));
    }
  };
  useEffect(() => {
    void load();
  }, [api]);

  if (setup === undefined) {
    return (
      <SetupFrame title="Identity provider setup">
        <h1>Identity provider setup</h1>
        {error === undefined ? <p role="status">Loading your setup…</p> : <ErrorNotice error={error} />}
      </SetupFrame>
    );
  }
  const { organization } = setup;
  const guide = chosenGuide(setup);
  const reveal = async (): Promise<void> => {
    setError(undefined);
    try {
      const answer = await api.post<SetupToken>("/setup/token", undefined);
      setToken(answer);
      setSetup({ ...setup, tokenRevealed: true, tokenId: answer.id });
    } catch (caught) {
      const failure = toError(caught);
      // Another tab of this session revealed it meanwhile: the page says it was shown, as after a reload.
      if (failure instanceof ApiError && failure.status === 409) await load();
      else setError(failure);
    }
  };
  return (
    <SetupFrame title={`Connect an identity provider to ${organization.name}`}>
      <h1>Connect an identity provider to {organization.name}</h1>
      <p>
        Your identity provider creates, updates and deactivates {organization.name}'s users here, through SCIM. Choose it, fill in its admin
        screen, paste the token, and watch its first requests arrive. This page works in this tab until {when(setup.expiresAt)}.
      </p>
      {notice === undefined ? null : (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ProviderChoice api={api} setup={setup} onChosen={setSetup} />
      {guide === undefined ? null : (
        <>
          <ProviderFields guide={guide} scimBaseUrl={setup.scimBaseUrl} />
          <section class="panel" aria-labelledby="step-token" data-testid="setup-token">
            <h2 id="step-token">3. The SCIM token</h2>
            {token !== undefined ? (
              <>
                <SecretOnce title={`${organization.name}'s SCIM token`} secret={token.token} onDismiss={() => setToken(undefined)} />
                <TokenAs guide={guide} token={token.token} />
              </>
            ) : setup.tokenRevealed ? (
              <p data-testid="token-shown-already">
                The token was shown already, once, and this page never shows it again. If it was lost, or never reached {guide.name}'s{" "}
                {guide.tokenField}, an administrator of {organization.name} can rotate it
                {setup.tokenId === undefined ? (
                  ""
                ) : (
                  <>
                    {" "}
                    (token id <code>{setup.tokenId}</code>)
                  </>
                )}
                .
              </p>
            ) : (
              <>
                <p>
                  It goes into {guide.name}'s {guide.tokenField}, which sends it with every request. It is shown once: reveal it with{" "}
                  {guide.name}'s screen open, and paste it there at once.
                </p>
                <button type="button" onClick={reveal}>
                  Reveal the token
                </button>
              </>
            )}
            <ErrorNotice error={error} />
          </section>
          <WaitingForRequests api={api} guide={guide} />
        </>
      )}
    </SetupFrame>
  );
}

/** Step 1: the radio group of identity providers; the choice is sent only when confirmed, not at each arrow key. */
function ProviderChoice({
  api,
  setup,
  onChosen,
}: {
  readonly api: ApiClient;
  readonly setup: Setup;
  readonly onChosen: (setup: Setup) => void;
}) {
  const chosen = chosenGuide(setup);
  const [selected, setSelected] = useState<SetupIdentityProvider | undefined>(setup.identityProvider);
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const choose = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (selected === undefined) {
      setError(new Error("Choose an identity provider first."));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      onChosen(await api.post<Setup>("/setup/identity-provider", { identityProvider: selected }));
    } catch (caught) {
      setError(toError(caught));
    } finally {
      setBusy(false);
    }
  };
  const said =
    chosen !== undefined
      ? `${chosen.name} chosen: ${setup.organization.name}'s requests are served with its compatibility profile, ${chosen.profile}.`
      : setup.identityProvider !== undefined
        ? `Whoever sent this link suggests ${guideOf(setup.identityProvider).name}: choose it, or another, to see its fields.`
        : "";
  return (
    <section class="panel" aria-labelledby="step-provider">
      <h2 id="step-provider">1. Your identity provider</h2>
      <form onSubmit={choose}>
        <fieldset class="field">
          <legend>Which identity provider will send {setup.organization.name}'s users?</legend>
          <div class="choices">
            {PROVIDER_GUIDES.map((candidate) => (
              <div class="check" key={candidate.id}>
                <input
                  type="radio"
                  name="identity-provider"
                  id={`idp-${candidate.id}`}
                  value={candidate.id}
                  checked={selected === candidate.id}
                  onChange={() => setSelected(candidate.id)}
                />
                <label for={`idp-${candidate.id}`}>
                  {candidate.name}
                  {candidate.hint === undefined ? null : <span class="hint"> ({candidate.hint})</span>}
                </label>
              </div>
            ))}
          </div>
        </fieldset>
        <button type="submit" disabled={busy}>
          {busy ? "Choosing…" : "Choose this identity provider"}
        </button>
      </form>
      <p class="hint" role="status" data-testid="provider-chosen">
        {said}
      </p>
      <ErrorNotice error={error} />
    </section>
  );
}

/** Step 2: where the provider's admin screen is, and what goes into each of its fields. */
function ProviderFields({ guide, scimBaseUrl }: { readonly guide: ProviderGuide; readonly scimBaseUrl: string }) {
  return (
    <section class="panel" aria-labelledby="step-fields" data-testid="provider-fields">
      <h2 id="step-fields">2. Fill in {guide.name}'s admin screen</h2>
      <p>{guide.where}</p>
      <dl class="idp-fields">
        {guide.fields.map((field) => (
          <div key={field.name} data-testid="provider-field">
            <dt>{field.name}</dt>
            <dd>
              <FieldValueOf field={field} scimBaseUrl={scimBaseUrl} />
            </dd>
          </div>
        ))}
      </dl>
      <h3>Then</h3>
      <ol class="after-steps">
        {guide.after.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {guide.limits === undefined ? null : <p class="hint">{guide.limits}</p>}
    </section>
  );
}

function FieldValueOf({ field, scimBaseUrl }: { readonly field: ProviderField; readonly scimBaseUrl: string }) {
  const { value } = field;
  switch (value.kind) {
    case "baseUrl":
      return (
        <>
          <code class="idp-value" data-testid="scim-base-url">
            {scimBaseUrl}
          </code>{" "}
          <CopyButton text={scimBaseUrl} label={`Copy ${field.name}`} />
        </>
      );
    case "token":
      // The token is shown in step 3 alone, so that it is on the screen in one place, once.
      return <>{value.prefix === undefined ? "The token (step 3)" : `“${value.prefix.trim()}”, a space, then the token (step 3)`}</>;
    case "text":
      return <span class="idp-value">{value.text}</span>;
    case "code":
      return (
        <>
          <pre>{value.code}</pre>
          <CopyButton text={value.code} label={`Copy ${field.name}`} />
        </>
      );
  }
}

/** The token as the provider's field takes it, when that is more than the token alone (Okta's `Bearer …`). */
function TokenAs({ guide, token }: { readonly guide: ProviderGuide; readonly token: string }) {
  const field = guide.fields.find((candidate) => candidate.value.kind === "token");
  if (field === undefined || field.value.kind !== "token" || field.value.prefix === undefined) return null;
  return (
    <p>
      {guide.name}'s {field.name} takes it after “{field.value.prefix.trim()} ”:{" "}
      <CopyButton text={`${field.value.prefix}${token}`} label={`Copy ${field.name}`} />
    </p>
  );
}
