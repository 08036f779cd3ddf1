/**
 * Client routes under `/console/` (the host answers index.html for each): the path picks the page,
 * the query keeps its state, so a view can be reloaded, bookmarked and sent to a colleague.
 */
import { useEffect, useState } from "preact/hooks";

export const ROOT = "/console";
const CHANGE = "scimkit-console-navigate";

export interface Place {
  /** The path after `/console`, e.g. `/organizations/acme`. */
  readonly path: string;
  readonly query: URLSearchParams;
}

function here(): Place {
  const path = location.pathname.startsWith(ROOT) ? location.pathname.slice(ROOT.length) : location.pathname;
  return { path: path === "" ? "/" : path, query: new URLSearchParams(location.search) };
}

/** The current place; re-renders on navigation and on the browser's back and forward. */
export function usePlace(): Place {
  const [place, setPlace] = useState(here);
  useEffect(() => {
    const update = (): void => setPlace(here());
    addEventListener("popstate", update);
    addEventListener(CHANGE, update);
    return () => {
      removeEventListener("popstate", update);
      removeEventListener(CHANGE, update);
    };
  }, []);
  return place;
}

/** `path` (after `/console`) with `query`, as an href. */
export function href(path: string, query: Readonly<Record<string, string | undefined>> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, value);
  const text = params.toString();
  return `${ROOT}${path}${text === "" ? "" : `?${text}`}`;
}

/** Goes to `url` without a reload; `replace` keeps the history entry (filters typed into a box). */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new Event(CHANGE));
}

/** A click on an in-console link: navigate without a reload, unless a modifier asks for a new tab. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? undefined;
  if (!anchor || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute("href") ?? ROOT);
}
