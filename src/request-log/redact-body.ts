/**
 * Removing secrets from a SCIM body before the provisioning log keeps it: a log that held the
 * passwords an identity provider sets would be a second, weaker password store.
 */
import type { AttributeDefinition } from "../scim/schema/attribute-definition.js";
import type { SchemaRegistry } from "../scim/schema/schema-registry.js";

/** What a removed value is replaced with, so the reader sees that something was sent. */
export const REDACTED = "[redacted]";

// Members named like a credential, whatever schema they come from: a custom schema may carry a
// token without marking it writeOnly, and no provisioning log needs one.
export const CREDENTIAL_NAME = /pass(word|wd|phrase)|secret|token|api[-_]?key|authorization|credential/i;

/**
 * The lower-cased names of the registry's attributes and sub-attributes marked `returned: never`
 * or `mutability: writeOnly` (RFC 7643 §7: values the service must never return), with `password`.
 *
 * @example secretAttributeNames(createSchemaRegistry()) // Set { "password" }
 */
export function secretAttributeNames(registry: SchemaRegistry): ReadonlySet<string> {
  const names = new Set<string>(["password"]);
  const visit = (attributes: readonly AttributeDefinition[]): void => {
    for (const attribute of attributes) {
      if (attribute.returned === "never" || attribute.mutability === "writeOnly") names.add(attribute.name.toLowerCase());
      if (attribute.subAttributes) visit(attribute.subAttributes);
    }
  };
  for (const schema of registry.schemas) visit(schema.attributes);
  return names;
}

/** Whether a member named `name` holds a secret: a name of `secrets` (any case, URN-prefixed or not), or one like a credential. */
export function isSecretName(name: string, secrets: ReadonlySet<string>): boolean {
  // An extension attribute may be written with its schema URN (`urn:…:User:password`).
  const bare = name.startsWith("urn:") ? name.slice(name.lastIndexOf(":") + 1) : name;
  return secrets.has(bare.toLowerCase()) || CREDENTIAL_NAME.test(bare);
}

// A PATCH path (RFC 7644 §3.5.2) names a secret when any attribute name in it does, outside the
// value filter's comparison values: `password`, `urn:…:User:password`, `x[type eq "a"].secret`.
/** Whether the PATCH `path` names a secret attribute (its operation's `value` is then one). */
export function pathNamesSecret(path: string, secrets: ReadonlySet<string>): boolean {
  const withoutUrn = path.startsWith("urn:") ? path.slice(path.lastIndexOf(":") + 1) : path;
  const withoutLiterals = withoutUrn.replace(/"(?:[^"\\]|\\.)*"/g, "");
  return (withoutLiterals.match(/[A-Za-z$][\w$-]*/g) ?? []).some((name) => isSecretName(name, secrets));
}

/** Whether a PATCH `path` member's value names a secret; one that is not a string does when its JSON names one. */
function pathMayNameSecret(path: unknown, secrets: ReadonlySet<string>): boolean {
  if (typeof path === "string") return pathNamesSecret(path, secrets);
  return path !== undefined && mayHoldSecret(JSON.stringify(path) ?? "", secrets);
}

/**
 * A copy of `body` with every secret replaced by `"[redacted]"`: members named as a secret
 * attribute or like a credential, at any depth and in any case (Bulk `data` and extension objects
 * included), and every `value` (any case) of a PATCH operation any of whose `path` members (any
 * case) names one.
 *
 * @example redactBody({ userName: "a", password: "x" }, new Set(["password"])) // { userName: "a", password: "[redacted]" }
 */
export function redactBody(body: unknown, secrets: ReadonlySet<string>): unknown {
  if (Array.isArray(body)) return body.map((item) => redactBody(item, secrets));
  if (body === null || typeof body !== "object") return body;
  const object = body as Record<string, unknown>;
  // Member names are case-insensitive (RFC 7643 §2.1): an operation may carry `Path` and `path`
  // both, and a service may read either, so the value is a secret when any of them names one.
  const secretValue = Object.keys(object).some((key) => key.toLowerCase() === "path" && pathMayNameSecret(object[key], secrets));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    copy[key] = isSecretName(key, secrets) || (secretValue && key.toLowerCase() === "value") ? REDACTED : redactBody(value, secrets);
  }
  return copy;
}

const secretWordPatterns = new WeakMap<ReadonlySet<string>, RegExp>();

/**
 * Whether JSON `text` may hold a member `redactBody` replaces: it names a secret or a credential-like
 * word somewhere, or holds a `\u` escape that could spell one. False means `redactBody` would return
 * the value unchanged, so the text can be kept as it is without parsing it: the provisioning log
 * does so for nearly every response and most requests.
 *
 * @example mayHoldSecret('{"userName":"a"}', new Set(["password"])) // false
 */
export function mayHoldSecret(text: string, secrets: ReadonlySet<string>): boolean {
  let pattern = secretWordPatterns.get(secrets);
  if (!pattern) {
    const names = [...secrets].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    pattern = new RegExp([CREDENTIAL_NAME.source, ...names, "\\\\u"].join("|"), "i");
    secretWordPatterns.set(secrets, pattern);
  }
  return pattern.test(text);
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character.
 *
 * @example truncateUtf8("héllo", 2) // { text: "h", truncated: true }
 */
export function truncateUtf8(text: string, maxBytes: number): { readonly text: string; readonly truncated: boolean } {
  // A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair, two units, is 4): most bodies
  // are known to fit without counting.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, "utf8") <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, "utf8");
  // A cut inside a multi-byte character decodes to U+FFFD: drop it rather than keep a wrong character.
  return {
    text: bytes
      .subarray(0, maxBytes)
      .toString("utf8")
      .replace(/\uFFFD+$/, ""),
    truncated: true,
  };
}
