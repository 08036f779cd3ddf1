/**
 * The setup page's credentials. The link's code arrives in the address's fragment and is taken out
 * of it before anything renders, so it is not left in the history, a bookmark or a screenshot; the
 * session it is exchanged for lives in this tab's `sessionStorage` (a reload keeps it, another tab or
 * browser has none), apart from the console's API key, which the setup page never reads.
 */
const STORAGE_KEY = "scimkit.console.setupSession";

/** The code in `#code=…`, removed from the address; undefined when there is none. */
export function takeSetupCode(): string | undefined {
  const code = new URLSearchParams(location.hash.replace(/^#/, "")).get("code") ?? undefined;
  if (location.hash !== "") history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  return code === undefined || code.trim() === "" ? undefined : code.trim();
}

export function storedSetupSession(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeSetupSession(session: string | undefined): void {
  try {
    if (session === undefined) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, session);
  } catch {
    // Storage disabled: the session stays in memory, and a reload needs a new link.
  }
}
