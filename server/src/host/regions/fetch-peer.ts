/**
 * A call to another region's host (issue 30): the operator's address for that region
 * (`SCIMKIT_REGIONS`), no redirect followed, and a failure worded for the operator — which
 * region, where, and why — since `fetch failed` alone says none of it.
 */

/** `fetch` of `url` at `region`'s host; a network failure throws naming the region, the URL and the cause's code. */
export async function fetchPeer(region: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "error" });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : String(error);
    throw new Error(`region ${region} could not be reached at ${url.split("?")[0]}: ${why}`);
  }
}
