/** The console: sign-in, then the navigation and the page the address names. */
import { useMemo, useState } from "preact/hooks";
import { apiClient } from "./api-client.js";
import { ApiContext } from "./context.js";
import { DirectoryPage } from "./directory-page.js";
import { OrganizationsPage } from "./organizations-page.js";
import { RegionsPage } from "./regions-page.js";
import { RequestLogPage } from "./request-log-page.js";
import { href, onLinkClick, usePlace } from "./router.js";
import { storedKey, storeKey } from "./session.js";
import { SignInPage } from "./sign-in-page.js";
import { TrainingPage } from "./training-page.js";

const SECTIONS = [
  { path: "/organizations", label: "Organizations" },
  { path: "/log", label: "Provisioning log" },
  { path: "/directory", label: "Directory" },
  { path: "/training", label: "Training" },
  { path: "/regions", label: "Regions" },
] as const;

export function App() {
  const [key, setKey] = useState(storedKey);
  const [expired, setExpired] = useState(false);
  const place = usePlace();
  const api = useMemo(
    () =>
      key === undefined
        ? undefined
        : apiClient(key, () => {
            // The key was revoked or rotated meanwhile: back to sign-in, saying why.
            storeKey(undefined);
            setExpired(true);
            setKey(undefined);
          }),
    [key],
  );
  if (api === undefined) {
    return (
      <>
        {expired ? (
          <p class="error banner" role="alert">
            The server refused your key (it was rotated or revoked). Sign in again.
          </p>
        ) : null}
        <SignInPage
          onSignedIn={(signedIn, remember) => {
            if (remember) storeKey(signedIn);
            setExpired(false);
            setKey(signedIn);
          }}
        />
      </>
    );
  }
  // The organization in view follows the user from section to section.
  const orgInView = place.query.get("org") ?? /^\/organizations\/([^/]+)/.exec(place.path)?.[1];
  const org = orgInView === undefined ? undefined : decodeURIComponent(orgInView);
  const section = SECTIONS.find((candidate) => place.path.startsWith(candidate.path)) ?? SECTIONS[0];
  return (
    <ApiContext.Provider value={api}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">scimkit console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((candidate) => (
              <li key={candidate.path}>
                <a
                  href={href(candidate.path, candidate.path === "/log" || candidate.path === "/directory" ? { org } : {})}
                  onClick={onLinkClick}
                  aria-current={candidate === section ? "page" : undefined}
                >
                  {candidate.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="secondary sign-out"
          onClick={() => {
            storeKey(undefined);
            setKey(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {section.path === "/organizations" ? <OrganizationsPage place={place} /> : null}
        {section.path === "/log" ? <RequestLogPage place={place} /> : null}
        {section.path === "/directory" ? <DirectoryPage place={place} /> : null}
        {section.path === "/training" ? <TrainingPage place={place} /> : null}
        {section.path === "/regions" ? <RegionsPage /> : null}
      </main>
    </ApiContext.Provider>
  );
}
