import { readFileSync } from "node:fs";
import { relative } from "node:path";
import ts from "typescript";

/**
 * Reading the error kinds of the sources for the tests that hold each wire format's errors to its
 * registry (issue 28, point 6). Read with TypeScript's parser, so a comment or a string that
 * looks like a class or a `new` does not count.
 */

/** An error kind a file defines: a class of `Error`, or an `Error` tagged with `Object.assign`. */
export interface ErrorKind {
  readonly file: string;
  /** The class's name; for a tagged error, the function (or constant) that builds it. */
  readonly name: string;
  readonly form: "class" | "tagged";
}

// Read and parsed once per file: each test asks several questions of the same few hundred files.
const texts = new Map<string, string>();
const parsed = new Map<string, ts.SourceFile>();

function textOf(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    text = readFileSync(file, "utf8");
    texts.set(file, text);
  }
  return text;
}

function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (source === undefined) {
    source = ts.createSourceFile(file, textOf(file), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

/** The files of `files` whose text holds `word`: only those can hold what the parser is asked for. */
const mentioning = (files: readonly string[], word: string): readonly string[] => files.filter((file) => textOf(file).includes(word));

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

/** The name of the function or constant `node` is inside, nearest first; `(top level)` outside any. */
function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name !== undefined) return at.name.getText();
    if (ts.isVariableDeclaration(at) && ts.isIdentifier(at.name)) return at.name.text;
  }
  return "(top level)";
}

/** `new Error(…)`, the only base a tagged error is built on. */
const isNewError = (node: ts.Node): boolean =>
  ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Error";

/**
 * Every error kind `files` define: each class whose base is `Error` or, transitively, another
 * such class of `files`, and each `Object.assign(new Error(…), {…})`.
 */
export function errorKindsOf(files: readonly string[]): ErrorKind[] {
  const classes: { readonly file: string; readonly name: string; readonly base: string }[] = [];
  const tagged: ErrorKind[] = [];
  for (const file of new Set([...mentioning(files, "extends"), ...mentioning(files, "Object.assign")])) {
    visit(parse(file), (node) => {
      if (ts.isClassLike(node) && node.name !== undefined) {
        const base = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText();
        if (base !== undefined) classes.push({ file, name: node.name.text, base });
      }
      if (
        ts.isCallExpression(node) &&
        node.expression.getText() === "Object.assign" &&
        node.arguments[0] !== undefined &&
        isNewError(node.arguments[0])
      ) {
        tagged.push({ file, name: enclosingName(node), form: "tagged" });
      }
    });
  }
  const errors = new Set(["Error"]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { name, base } of classes) {
      if (errors.has(base) && !errors.has(name)) {
        errors.add(name);
        grew = true;
      }
    }
  }
  const kinds: ErrorKind[] = classes
    .filter(({ name }) => errors.has(name) && name !== "Error")
    .map(({ file, name }) => ({ file, name, form: "class" }));
  return [...kinds, ...tagged];
}

/** The files of `files` that construct `className` (`new ClassName(…)`). */
export function filesConstructing(files: readonly string[], className: string): string[] {
  return mentioning(files, className).filter((file) => {
    let found = false;
    visit(parse(file), (node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === className) found = true;
    });
    return found;
  });
}

/**
 * The string literals `files` pass as the first argument of a call to `callee` (a plain name:
 * `scimError("notFound", …)` gives `notFound`).
 */
export function firstArgumentsOf(files: readonly string[], callee: string): string[] {
  return mentioning(files, callee).flatMap((file) => {
    const found: string[] = [];
    visit(parse(file), (node) => {
      if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== callee) return;
      const first = node.arguments[0];
      if (first !== undefined && ts.isStringLiteralLike(first)) found.push(first.text);
    });
    return found;
  });
}

/**
 * The member names `files` pass as the first argument of a call to `callee` in the form
 * `Holder.name` (`badRequest(ScimType.invalidPath, …)` gives `invalidPath` for `ScimType`).
 */
export function memberArgumentsOf(files: readonly string[], callee: string, holder: string): string[] {
  return mentioning(files, callee).flatMap((file) => {
    const found: string[] = [];
    visit(parse(file), (node) => {
      if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== callee) return;
      const first = node.arguments[0];
      if (first !== undefined && ts.isPropertyAccessExpression(first) && first.expression.getText() === holder) found.push(first.name.text);
    });
    return found;
  });
}

/** The JSDoc block a file opens with: where a registry names the errors it does not hold. */
export function headerOf(file: string): string {
  const match = /^\s*(?:#!.*\n)?\/\*\*[\s\S]*?\*\//.exec(textOf(file));
  return match?.[0] ?? "";
}

/**
 * The error kinds of `kinds` that are neither defined in one of `registries` nor named, in
 * backticks, in a registry's header — as `file: name`, the file relative to the working directory.
 */
export function unnamedErrorKinds(kinds: readonly ErrorKind[], registries: readonly string[]): string[] {
  const headers = registries.map(headerOf).join("\n");
  return kinds
    .filter(({ file, name }) => !registries.includes(file) && !headers.includes(`\`${name}\``))
    .map(({ file, name }) => `${relative(".", file)}: ${name}`);
}
