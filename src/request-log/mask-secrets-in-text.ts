/**
 * Removing secrets from a request body the JSON parser refused (issue 18): what an identity
 * provider sent is most worth seeing when it was malformed, but a body that cannot be parsed
 * cannot be walked by `redactBody`. A tolerant scan over the text finds the members anyway.
 */
import { CREDENTIAL_NAME, isSecretName, pathNamesSecret, REDACTED } from "./redact-body.js";

/** A stretch of the text to replace with `"[redacted]"`: [start, end). */
type Span = readonly [number, number];

/** An open `{` (members) or `[` of the scan, with what a PATCH operation's masking needs. */
interface Frame {
  readonly kind: "{" | "[";
  pathNamesSecret: boolean;
  readonly values: Span[];
}

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[\w$-]/;
// Where a bare (unquoted) value ends: a JSON separator, a form-encoding one, or the line.
const BARE_END = /[,}\]&\r\n]/;

/** End (exclusive) of the string opening at `start` with `"` or `'`; the text's end when it never closes. */
function stringEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote) return i + 1;
  }
  return text.length;
}

/** End (exclusive) of the object or array opening at `start`, strings skipped; the text's end when it never closes. */
function nestedEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") i = stringEnd(text, i) - 1;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** End (exclusive) of the value starting at `start` (a string, an object or array, or a bare word or number). */
function valueEnd(text: string, start: number): number {
  const c = text[start];
  if (c === '"' || c === "'") return stringEnd(text, start);
  if (c === "{" || c === "[") return nestedEnd(text, start);
  let i = start;
  while (i < text.length && !BARE_END.test(text[i] as string)) i++;
  // Trailing spaces before the separator are not part of the value.
  while (i > start && /\s/.test(text[i - 1] as string)) i--;
  return i;
}

/** The string token's content, its escapes read where they can be. */
function unquote(token: string): string {
  const inner = token.slice(1, token.endsWith(token[0] as string) && token.length > 1 ? -1 : undefined);
  try {
    return JSON.parse(`"${inner.replace(/(?<!\\)"/g, '\\"')}"`) as string;
  } catch {
    return inner;
  }
}

function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

/** Every occurrence of a word that names a secret: a `secrets` name or a credential-like one. */
function secretWords(text: string, secrets: ReadonlySet<string>): Span[] {
  const names = [...secrets].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp([CREDENTIAL_NAME.source, ...names].join("|"), "gi");
  return [...text.matchAll(pattern)].map((match) => [match.index, match.index + match[0].length] as const);
}

const inside = (spans: readonly Span[], [start, end]: Span): boolean => spans.some(([from, to]) => from <= start && end <= to);

/**
 * `text` (a request body that is not valid JSON) with the value of every member that names a
 * secret replaced by `"[redacted]"`, as `redactBody` would for parsed JSON: members named as a
 * secret attribute or like a credential, at any depth, and the `value` of a PATCH operation whose
 * `path` names one. The scan is tolerant of what makes JSON malformed: single-quoted strings,
 * unquoted names, `=` for `:`, a missing comma, a body cut off mid-string.
 *
 * Returns undefined when a secret-like word is left that the scan could not place as a member
 * name whose value it replaced (`password x`, `"password" "x"`): the text is then not kept at
 * all, since a log that might hold a password is worse than one without the body.
 *
 * @example maskSecretsInText('{"userName":"a","password":"x",}', new Set(["password"])) // '{"userName":"a","password":"[redacted]",}'
 */
export function maskSecretsInText(text: string, secrets: ReadonlySet<string>): string | undefined {
  const masked: Span[] = [];
  // Names and PATCH paths that account for a secret word found in them.
  const accounted: Span[] = [];
  const stack: Frame[] = [];
  const close = (frame: Frame | undefined): void => {
    if (frame?.pathNamesSecret) masked.push(...frame.values);
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "{" || c === "[") {
      stack.push({ kind: c, pathNamesSecret: false, values: [] });
      i++;
      continue;
    }
    if (c === "}" || c === "]") {
      // A stray closer of the other kind closes what it can: the scan stays in step with most typos.
      const open = c === "}" ? "{" : "[";
      const at = stack.map((frame) => frame.kind).lastIndexOf(open);
      if (at >= 0) for (const frame of stack.splice(at).reverse()) close(frame);
      i++;
      continue;
    }
    let end: number;
    let name: string | undefined;
    if (c === '"' || c === "'") {
      end = stringEnd(text, i);
      name = unquote(text.slice(i, end));
    } else if (NAME_START.test(c)) {
      end = i + 1;
      while (end < text.length && NAME_PART.test(text[end] as string)) end++;
      name = text.slice(i, end);
    } else {
      i++;
      continue;
    }
    const separator = skipSpaces(text, end);
    if (text[separator] !== ":" && text[separator] !== "=") {
      i = end;
      continue;
    }
    const start = skipSpaces(text, separator + 1);
    const object = stack.at(-1)?.kind === "{" ? stack.at(-1) : undefined;
    if (isSecretName(name, secrets)) {
      const stop = valueEnd(text, start);
      accounted.push([i, end]);
      masked.push([start, Math.max(start, stop)]);
      i = Math.max(stop, separator + 1);
      continue;
    }
    const lower = name.toLowerCase();
    if (lower === "path" && (text[start] === '"' || text[start] === "'")) {
      const stop = stringEnd(text, start);
      if (pathNamesSecret(unquote(text.slice(start, stop)), secrets)) {
        accounted.push([start, stop]);
        if (object) object.pathNamesSecret = true;
      }
      i = stop;
      continue;
    }
    // Scanned on, not skipped: a `value` object holds members of its own (`{ "password": … }`).
    if (lower === "value" && object) object.values.push([start, Math.max(start, valueEnd(text, start))]);
    i = separator + 1;
  }
  // A body cut short leaves its operations open: a secret path still masks their values.
  for (const frame of stack.reverse()) close(frame);
  const spans = [...masked].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  if (secretWords(text, secrets).some((word) => !inside(spans, word) && !inside(accounted, word))) return undefined;
  let out = "";
  let copied = 0;
  for (const [start, end] of spans) {
    if (start < copied) continue;
    out += `${text.slice(copied, start)}"${REDACTED}"`;
    copied = end;
  }
  return out + text.slice(copied);
}
