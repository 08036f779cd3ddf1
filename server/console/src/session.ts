/**
 * Where the signed-in key lives: in memory, and in this tab's `sessionStorage` only when the user
 * asks (it survives a reload, not the tab). Never `localStorage`, never a cookie.
 */
const STORAGE_KEY = "scimkit.console.apiKey";

export function storedKey(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeKey(key: string | undefined): void {
  try {
    if (key === undefined) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Storage disabled: the key stays in memory for this page only.
  }
}
