import { readFileSync } from "node:fs";
import ts from "typescript";

/** A top-level function of a file: its name, where it begins, how many lines it spans, and what it does. */
export interface TopLevelFunction {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly lines: number;
  /** Its parameters and body as the printer writes them without comments: equal for two copies however they are laid out or named. */
  readonly shape: string;
}

type FunctionNode = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

/** The function a top-level statement declares, with the node whose span counts, if it is one. */
function functionsOf(statement: ts.Statement): { readonly name: string; readonly node: FunctionNode }[] {
  if (ts.isFunctionDeclaration(statement) && statement.body !== undefined) {
    return [{ name: statement.name?.text ?? "default", node: statement }];
  }
  if (!ts.isVariableStatement(statement)) return [];
  return statement.declarationList.declarations.flatMap((declaration) => {
    let initializer = declaration.initializer;
    // `const f = (... ) => { } as Type` and `satisfies` wrap the function; unwrap them.
    while (
      initializer !== undefined &&
      (ts.isAsExpression(initializer) || ts.isSatisfiesExpression(initializer) || ts.isParenthesizedExpression(initializer))
    ) {
      initializer = initializer.expression;
    }
    if (initializer === undefined || !(ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) return [];
    return [{ name: ts.isIdentifier(declaration.name) ? declaration.name.text : declaration.name.getText(), node: initializer }];
  });
}

const printer = ts.createPrinter({ removeComments: true });

/** Every top-level function of `file` (a `function` declaration, or a `const` bound to a function), JSDoc excluded from its lines. */
export function topLevelFunctionsOf(file: string): TopLevelFunction[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const print = (node: ts.Node): string => printer.printNode(ts.EmitHint.Unspecified, node, source);
  return source.statements.flatMap((statement) =>
    functionsOf(statement).map(({ name, node }) => {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const shape = `(${node.parameters.map(print).join(", ")}) ${node.body === undefined ? "" : print(node.body)}`;
      return { name, file, line: first + 1, lines: last - first + 1, shape };
    }),
  );
}
