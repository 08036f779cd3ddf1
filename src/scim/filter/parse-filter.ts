/**
 * The SCIM filter parser (RFC 7644 §3.4.2.2), producing the `ParsedFilter` AST.
 *
 * We parse ourselves rather than wrap scim2-parse-filter: its tree for
 * `emails[type eq "work"].value ew "x"` is identical to the one for
 * `emails[type eq "work"] and emails.value ew "x"`, so no conversion can restore the meaning; it
 * re-escapes backslashes so JSON escapes in string values are lost; and it recurses without a
 * bound. `parse-filter.defects.test.ts` pins each of these.
 */
import { ScimType, badRequest } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { CompareOperator, FilterValue, ParsedFilter } from "./filter-ast.js";

/** Bounds that keep hostile filters from costing more than a bounded amount of work. */
export interface FilterLimits {
  /** Longest filter accepted, in characters. Default 10,000. */
  readonly maxLength: number;
  /** Deepest nesting of parentheses, brackets and `not` accepted. Default 32. */
  readonly maxDepth: number;
}

export const defaultFilterLimits: FilterLimits = { maxLength: 10_000, maxDepth: 32 };

type Token =
  | { readonly type: "word"; readonly text: string; readonly at: number }
  | { readonly type: "string"; readonly value: string; readonly at: number }
  | { readonly type: "number"; readonly value: number; readonly at: number }
  | { readonly type: "punct"; readonly text: "(" | ")" | "[" | "]" | "]."; readonly at: number }
  | { readonly type: "end"; readonly at: number };

const KEYWORDS: ReadonlySet<string> = new Set(["and", "or", "not"]);
const COMPARE_OPERATORS: ReadonlySet<string> = new Set(["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"]);
// RFC 7644 §3.4.2.2 `attrPath`: names start with a letter (`$ref` is the RFC's own exception),
// URN prefixes add `:` and `.` and digits.
const WORD = /[A-Za-z$_][\w$:.-]*/y;
// RFC 8259 §7: only these escapes exist, and control characters must be escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: RFC 8259 §7 forbids unescaped control characters in a JSON string.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/y;

class FilterSyntaxError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    return pattern.exec(text)?.[0];
  };
  while (at < text.length) {
    const char = text[at] ?? "";
    if (char === " " || char === "\t" || char === "\n" || char === "\r") {
      at += 1;
    } else if (char === "(" || char === ")" || char === "[") {
      tokens.push({ type: "punct", text: char, at });
      at += 1;
    } else if (char === "]") {
      const dotted = text[at + 1] === ".";
      tokens.push({ type: "punct", text: dotted ? "]." : "]", at });
      at += dotted ? 2 : 1;
    } else if (char === '"') {
      const literal = match(STRING);
      if (literal === undefined) throw new FilterSyntaxError(`unterminated or malformed string at position ${at + 1}`);
      tokens.push({ type: "string", value: JSON.parse(literal) as string, at });
      at += literal.length;
    } else if (char === "-" || (char >= "0" && char <= "9")) {
      const literal = match(NUMBER);
      if (literal === undefined) throw new FilterSyntaxError(`malformed number at position ${at + 1}`);
      const value = Number(literal);
      if (!Number.isFinite(value)) throw new FilterSyntaxError(`number out of range at position ${at + 1}`);
      tokens.push({ type: "number", value, at });
      at += literal.length;
    } else {
      const word = match(WORD);
      if (word === undefined) throw new FilterSyntaxError(`unexpected character ${JSON.stringify(char)} at position ${at + 1}`);
      tokens.push({ type: "word", text: word, at });
      at += word.length;
    }
  }
  tokens.push({ type: "end", at });
  return tokens;
}

function describe(token: Token): string {
  switch (token.type) {
    case "end":
      return "the end of the filter";
    case "word":
    case "punct":
      return `"${token.text}" at position ${token.at + 1}`;
    case "string":
      return `the string ${JSON.stringify(token.value)} at position ${token.at + 1}`;
    case "number":
      return `the number ${token.value} at position ${token.at + 1}`;
  }
}

function createParser(tokens: readonly Token[], maxDepth: number) {
  let index = 0;
  let depth = 0;
  const peek = (): Token => tokens[index] ?? { type: "end", at: 0 };
  const next = (): Token => {
    const token = peek();
    index += 1;
    return token;
  };
  const isWord = (token: Token, word: string): boolean => token.type === "word" && token.text.toLowerCase() === word;
  const expectPunct = (text: string, context: string): void => {
    const token = next();
    if (token.type !== "punct" || token.text !== text) {
      throw new FilterSyntaxError(`expected "${text}" ${context}, found ${describe(token)}`);
    }
  };
  const enter = (): void => {
    depth += 1;
    if (depth > maxDepth) throw new FilterSyntaxError(`nested deeper than ${maxDepth} levels`);
  };

  // `or` binds loosest, then `and`, then `not` (RFC 7644 §3.4.2.2 Table 5).
  function parseOr(inValuePath: boolean): ParsedFilter {
    const filters = [parseAnd(inValuePath)];
    while (isWord(peek(), "or")) {
      next();
      filters.push(parseAnd(inValuePath));
    }
    return filters.length === 1 && filters[0] ? filters[0] : { kind: "or", filters };
  }

  function parseAnd(inValuePath: boolean): ParsedFilter {
    const filters = [parseUnary(inValuePath)];
    while (isWord(peek(), "and")) {
      next();
      filters.push(parseUnary(inValuePath));
    }
    return filters.length === 1 && filters[0] ? filters[0] : { kind: "and", filters };
  }

  function parseUnary(inValuePath: boolean): ParsedFilter {
    const token = peek();
    if (isWord(token, "not")) {
      next();
      // RFC 7644 §3.4.2.2: `not` applies to a parenthesized filter only.
      const open = peek();
      if (open.type !== "punct" || open.text !== "(") {
        throw new FilterSyntaxError(`"not" must be followed by a parenthesized filter, found ${describe(open)}`);
      }
      // The parenthesized group that must follow counts the nesting level.
      return { kind: "not", filter: parseUnary(inValuePath) };
    }
    if (token.type === "punct" && token.text === "(") {
      next();
      enter();
      const filter = parseOr(inValuePath);
      expectPunct(")", "to close the group");
      depth -= 1;
      return filter;
    }
    if (token.type === "word") return parseAttributeExpression(inValuePath);
    throw new FilterSyntaxError(`expected an attribute, "not" or "(", found ${describe(token)}`);
  }

  function parseAttributeExpression(inValuePath: boolean): ParsedFilter {
    const pathToken = next();
    if (pathToken.type !== "word") throw new FilterSyntaxError(`expected an attribute, found ${describe(pathToken)}`);
    const path = pathToken.text;
    if (KEYWORDS.has(path.toLowerCase())) {
      throw new FilterSyntaxError(`expected an attribute, found the keyword "${path}" at position ${pathToken.at + 1}`);
    }
    const after = peek();
    if (after.type === "punct" && after.text === "[") {
      if (inValuePath) throw new FilterSyntaxError(`a value filter cannot contain another one ("${path}[" at position ${after.at + 1})`);
      next();
      enter();
      const inner = parseOr(true);
      const close = next();
      depth -= 1;
      if (close.type !== "punct" || (close.text !== "]" && close.text !== "].")) {
        throw new FilterSyntaxError(`expected "]" to close "${path}[", found ${describe(close)}`);
      }
      if (close.text === "]") return { kind: "valuePath", path, filter: inner };
      // `emails[type eq "work"].value ew "x"` constrains the same element twice, so both
      // conditions belong inside the one value filter.
      const sub = parseAttributeExpression(true);
      if (sub.kind !== "compare" && sub.kind !== "present") {
        throw new FilterSyntaxError(`expected a comparison after "${path}[…]."`);
      }
      return { kind: "valuePath", path, filter: { kind: "and", filters: [inner, sub] } };
    }
    const operatorToken = next();
    if (operatorToken.type !== "word") {
      throw new FilterSyntaxError(`expected an operator after "${path}", found ${describe(operatorToken)}`);
    }
    const op = operatorToken.text.toLowerCase();
    if (op === "pr") return { kind: "present", path };
    if (!COMPARE_OPERATORS.has(op)) {
      throw new FilterSyntaxError(`"${operatorToken.text}" is not a filter operator (eq, ne, co, sw, ew, gt, lt, ge, le, pr)`);
    }
    return { kind: "compare", path, op: op as CompareOperator, value: parseValue(path, op) };
  }

  function parseValue(path: string, op: string): FilterValue {
    const token = next();
    switch (token.type) {
      case "string":
      case "number":
        return token.value;
      case "word": {
        const word = token.text.toLowerCase();
        if (word === "true") return true;
        if (word === "false") return false;
        if (word === "null") return null;
        throw new FilterSyntaxError(
          `the value of "${path} ${op}" must be a quoted string, a number, true, false or null, found ${describe(token)}`,
        );
      }
      default:
        throw new FilterSyntaxError(`expected a value after "${path} ${op}", found ${describe(token)}`);
    }
  }

  return {
    parse(): ParsedFilter {
      const filter = parseOr(false);
      const rest = peek();
      if (rest.type !== "end") throw new FilterSyntaxError(`unexpected ${describe(rest)}`);
      return filter;
    },
  };
}

/** Parses a filter without binding it to a schema, within the given limits. Options accept `maxLength`, `maxDepth`. */
export function parseFilter(text: string, limits: Partial<FilterLimits> = {}): Result<ParsedFilter> {
  const { maxLength, maxDepth } = { ...defaultFilterLimits, ...limits };
  if (text.length > maxLength) {
    return fail(badRequest(ScimType.invalidFilter, `The filter is ${text.length} characters long; the limit is ${maxLength}.`));
  }
  if (text.trim() === "") return fail(badRequest(ScimType.invalidFilter, "The filter is empty."));
  try {
    return ok(createParser(tokenize(text), maxDepth).parse());
  } catch (error) {
    if (error instanceof FilterSyntaxError) {
      return fail(badRequest(ScimType.invalidFilter, `Invalid filter: ${error.message}.`));
    }
    throw error;
  }
}
