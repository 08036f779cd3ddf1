/**
 * What the host's security-event process tests share: calling the operator API of a running host,
 * and waiting for a condition the host reaches in its own time (a loaded machine is slow, never wrong).
 */

/** A call of `{at}/analytics/v1{path}` with the operator key `key`: the status and the parsed body. */
export async function operatorCall(
  at: string,
  key: string,
  path: string,
  init: RequestInit = {},
): Promise<{ readonly status: number; readonly body: unknown }> {
  const response = await fetch(`${at}/analytics/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

/** Resolves once `condition` holds, checking every 25 ms; rejects naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
