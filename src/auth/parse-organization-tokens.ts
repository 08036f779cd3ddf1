/**
 * Reads the organizations and tokens of a host configured from one environment variable, e.g.
 * `SCIMKIT_ORGS="acme:s3cret,globex:t0ken"`, into the map `staticTokenVerifier` takes.
 */

/** Organization ids as they appear in `/scim/Organizations/{org_id}/v2`. */
const ORG_ID = /^[A-Za-z0-9._-]+$/;
const WHITESPACE = /\s/;

/**
 * Parses comma-separated `orgId:token` entries. Whitespace around entries and around either side
 * of the first `:` is ignored; the token is everything after the first `:` (so it may contain
 * `:`), and may not contain a comma or whitespace. Repeating an organization gives it several
 * tokens, in order; a token repeated for the same organization counts once. Blank text is no
 * organizations.
 *
 * Throws an `Error` naming the entry (by 1-based position) and what is wrong: an empty entry, a
 * missing `:`, an empty or malformed organization id, an empty token or one containing whitespace.
 * Messages never quote a token, nor text that might be one, since configuration errors get logged.
 *
 * @example
 * parseOrganizationTokens("acme:tok1, globex:tok2, acme:tok3")
 * // { acme: ["tok1", "tok3"], globex: ["tok2"] }
 */
export function parseOrganizationTokens(text: string): Readonly<Record<string, readonly string[]>> {
  const tokensByOrg = new Map<string, string[]>();
  if (text.trim() === "") return {};
  const entries = text.split(",");
  entries.forEach((raw, index) => {
    const where = `organization tokens: entry ${index + 1} of ${entries.length}`;
    const entry = raw.trim();
    if (entry === "") throw new Error(`${where} is empty (a stray comma?); expected "orgId:token"`);
    const colon = entry.indexOf(":");
    if (colon < 0) throw new Error(`${where} has no ":"; expected "orgId:token"`);
    const orgId = entry.slice(0, colon).trim();
    const token = entry.slice(colon + 1).trim();
    if (orgId === "") throw new Error(`${where} has an empty organization id before ":"`);
    if (!ORG_ID.test(orgId)) {
      throw new Error(`${where} has an organization id with characters other than letters, digits, "-", "_" and "."`);
    }
    if (token === "") throw new Error(`${where} (organization "${orgId}") has an empty token after ":"`);
    if (WHITESPACE.test(token)) throw new Error(`${where} (organization "${orgId}") has whitespace inside its token`);
    const tokens = tokensByOrg.get(orgId) ?? [];
    if (!tokens.includes(token)) tokens.push(token);
    tokensByOrg.set(orgId, tokens);
  });
  // fromEntries defines own properties, so an organization named "__proto__" stays a plain key.
  return Object.fromEntries(tokensByOrg);
}
