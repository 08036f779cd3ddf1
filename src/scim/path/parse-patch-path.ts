/**
 * Parses and binds the `path` of a PATCH operation (RFC 7644 §3.5.2):
 *
 *     PATH = attrPath / valuePath [subAttr]
 *
 * The attribute part is bound by the registry (URN prefixes, aliases, case-insensitive names); the
 * bracketed value filter is handed to the one filter parser and bound by `resolveFilter`, so this
 * file only finds where the brackets are.
 */
import { ScimType, badRequest } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { ParsedFilter } from "../filter/filter-ast.js";
import { defaultFilterLimits, parseFilter, type FilterLimits } from "../filter/parse-filter.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { resolveFilter } from "../filter/resolve-filter.js";
import { findSubAttribute } from "../schema/normalize-value.js";
import { formatPath, type ResolvedPath } from "../schema/resolved-path.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { patchPathOf, type PatchPath } from "./patch-path.js";

// RFC 7644 §3.10 ATTRNAME (`$ref` being the RFC's own exception to the leading ALPHA).
const SUB_ATTRIBUTE = /^\.([A-Za-z$_][\w$-]*)$/;

function invalidPath<T>(text: string, reason: string): Result<T> {
  return fail(badRequest(ScimType.invalidPath, `Invalid PATCH path ${JSON.stringify(text)}: ${reason}.`));
}

/**
 * The index of the `]` closing the `[` at `open`, or -1. Brackets inside quoted filter values
 * (`emails[value eq "a]b"]`) do not count; JSON escapes inside them are skipped.
 */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let index = open; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "[") {
      depth += 1;
    } else if (char === "]") {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function bindAttribute(schema: ResourceSchema, text: string, attributeText: string): Result<ResolvedPath> {
  const resolution = schema.resolvePath(attributeText);
  return resolution.ok ? ok(resolution.path) : invalidPath(text, resolution.reason);
}

function bindValuePath(
  schema: ResourceSchema,
  text: string,
  trimmed: string,
  open: number,
  limits: Partial<FilterLimits>,
  tolerances: Tolerances,
): Result<PatchPath> {
  const close = closingBracket(trimmed, open);
  if (close < 0) return invalidPath(text, `the "[" at position ${open + 1} is never closed`);
  const rest = trimmed.slice(close + 1);
  const subMatch = SUB_ATTRIBUTE.exec(rest);
  if (rest !== "" && !subMatch) return invalidPath(text, `only ".subAttribute" may follow "]", not ${JSON.stringify(rest)}`);

  const bound = bindAttribute(schema, text, trimmed.slice(0, open));
  if (!bound.ok) return bound;
  const target = bound.value;
  // RFC 7644 §3.5.2: a value filter selects values of a multi-valued attribute; `valuePath` in
  // RFC 7644 §3.4.2.2 filters sub-attributes, so the attribute must be complex as well.
  if (target.subAttribute || target.attribute.type !== "complex" || !target.attribute.multiValued) {
    return invalidPath(text, `a value filter needs a multi-valued complex attribute, and "${formatPath(target)}" is not one`);
  }

  const parsed = parseFilter(trimmed.slice(open + 1, close), limits);
  if (!parsed.ok) return invalidPath(text, parsed.error.detail.replace(/\.$/, ""));
  const valuePath: ParsedFilter = { kind: "valuePath", path: formatPath(target), filter: parsed.value };
  const resolved = resolveFilter(schema, valuePath, tolerances);
  if (!resolved.ok) return invalidPath(text, resolved.error.detail.replace(/\.$/, ""));
  if (resolved.value.kind !== "valuePath") return invalidPath(text, "the value filter did not bind to the attribute");
  const filter = resolved.value;

  if (!subMatch) return ok({ text, target, filter });
  const subName = subMatch[1] ?? "";
  const subAttribute = findSubAttribute(target.attribute, subName);
  if (!subAttribute) return invalidPath(text, `"${subName}" is not a sub-attribute of "${target.attribute.name}"`);
  return ok({ text, target, filter, subAttribute });
}

/**
 * Parses a PATCH `path` and binds it to `schema` (RFC 7644 §3.5.2): `userName`, `name.familyName`,
 * `emails[type eq "work"]`, `emails[type eq "work"].value`, `members[value eq "2819c223"]`,
 * URN-qualified extension paths (`urn:…:enterprise:2.0:User:manager.value`) and registered aliases
 * (`urn:…:enterprise:2.0:employeeNumber`), all case-insensitively. The filter inside the brackets is
 * bounded by `limits` like any filter.
 *
 * Fails with 400 `invalidPath` (RFC 7644 §3.12) naming the path for anything malformed or unknown:
 * an empty path, an unknown attribute or sub-attribute, an unclosed bracket, a filter that does not
 * parse or bind, or a filter on an attribute that is not multi-valued and complex.
 */
export function parsePatchPath(
  schema: ResourceSchema,
  text: string,
  limits: Partial<FilterLimits> = {},
  tolerances: Tolerances = ALL_TOLERANCES,
): Result<PatchPath> {
  const maxLength = limits.maxLength ?? defaultFilterLimits.maxLength;
  if (text.length > maxLength) return invalidPath(text.slice(0, 40), `the path is longer than ${maxLength} characters`);
  const trimmed = text.trim();
  if (trimmed === "") return invalidPath(text, "the path is empty");
  const open = trimmed.indexOf("[");
  if (open >= 0) return bindValuePath(schema, text, trimmed, open, limits, tolerances);
  if (trimmed.includes("]")) return invalidPath(text, `"]" without a matching "["`);
  const bound = bindAttribute(schema, text, trimmed);
  return bound.ok ? ok(patchPathOf(bound.value, text)) : bound;
}
