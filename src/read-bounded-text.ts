/**
 * The body of an answer to one of our own outbound requests (a key set, another region's
 * directory), read only up to a bound: a server that answers with more is cut off where the
 * bound is reached, never read to its end, so what a remote party can make us buffer is bounded.
 */

/**
 * `response`'s body as UTF-8 text; rejects, having cancelled the rest of the body, once more than
 * `maxBytes` have arrived (or at once when `Content-Length` declares more), naming it as `what`.
 *
 * @example const text = await readBoundedText(await fetch(url, { redirect: "error" }), 512 * 1024);
 */
export async function readBoundedText(response: Response, maxBytes: number, what = "the answer"): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`${what} is larger than ${maxBytes} bytes`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`${what} is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
