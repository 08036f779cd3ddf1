/**
 * The host's secrets: the SCIM tokens of `SCIMKIT_ORGS`, the operator key, the cursor secret and
 * the OAuth signing key. Each is checked for length or shape, and a message about one never
 * echoes its value: messages go to logs.
 */
import { parseOrganizationTokens } from "scimkit";
import type { SigningKey } from "scimkit/oauth";
import type { HostSettings } from "../host-settings.js";
import { MIN_SECRET_LENGTH } from "./host-setting-defaults.js";
import { raw, type SettingReader } from "./setting-reader.js";

const GENERATE = "generate one with `openssl rand -hex 32` or `node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"`";

/** `SCIMKIT_ORGS`: static SCIM tokens by organization; undefined when unset or bad. */
export function readOrganizations(reader: SettingReader): HostSettings["organizations"] {
  const orgsText = raw(reader, "SCIMKIT_ORGS");
  if (orgsText === undefined) return undefined;
  try {
    const organizations = parseOrganizationTokens(orgsText);
    for (const [orgId, tokens] of Object.entries(organizations)) {
      if (tokens.some((token) => token.length < MIN_SECRET_LENGTH)) {
        // Never echo the token itself: the message goes to logs.
        reader.errors.push(
          `SCIMKIT_ORGS: the token of organization "${orgId}" has fewer than ${MIN_SECRET_LENGTH} characters; ${GENERATE}`,
        );
      }
    }
    return organizations;
  } catch (error) {
    reader.errors.push(`SCIMKIT_ORGS: ${error instanceof Error ? error.message : String(error)}; expected "org1:token1,org2:token2"`);
    return undefined;
  }
}

/** `SCIMKIT_OPERATOR_KEY`, as given (a short one is reported). */
export function readOperatorKey(reader: SettingReader): string | undefined {
  const operatorKey = raw(reader, "SCIMKIT_OPERATOR_KEY");
  if (operatorKey !== undefined && (operatorKey.length < MIN_SECRET_LENGTH || /\s/.test(operatorKey))) {
    reader.errors.push(`SCIMKIT_OPERATOR_KEY: expected at least ${MIN_SECRET_LENGTH} characters and no whitespace; ${GENERATE}`);
  }
  return operatorKey;
}

/** `SCIMKIT_CURSOR_SECRET`, as given (a short one is reported). */
export function readCursorSecret(reader: SettingReader): string | undefined {
  const cursorSecret = raw(reader, "SCIMKIT_CURSOR_SECRET");
  if (cursorSecret !== undefined && cursorSecret.length < MIN_SECRET_LENGTH) {
    reader.errors.push(
      `SCIMKIT_CURSOR_SECRET: expected at least ${MIN_SECRET_LENGTH} characters, the same on every host of one database; ${GENERATE}`,
    );
  }
  return cursorSecret;
}

/** `SCIMKIT_OAUTH_SIGNING_KEY`: a private JWK; undefined when unset or bad. */
export function readOAuthSigningKey(reader: SettingReader): SigningKey | undefined {
  const keyText = raw(reader, "SCIMKIT_OAUTH_SIGNING_KEY");
  if (keyText === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(keyText);
  } catch {
    // Reported below.
  }
  const jwk = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as SigningKey) : undefined;
  if (jwk === undefined || typeof jwk.kty !== "string" || typeof jwk.d !== "string") {
    // Never the value: it is a private key.
    reader.errors.push(
      "SCIMKIT_OAUTH_SIGNING_KEY: expected a private JWK as JSON; generate one with `node --input-type=module -e \"import { generateSigningKey } from 'scimkit/oauth'; console.log(JSON.stringify(await generateSigningKey()))\"`",
    );
    return undefined;
  }
  return jwk;
}
