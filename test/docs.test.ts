import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The docs as tests (issue 28, point 8): every TypeScript sample compiles, every relative link
 * and `#anchor` lands, and the commands the docs give for a checkout run.
 *
 * Which files: every Markdown file git knows of or would add (`git ls-files --cached --others
 * --exclude-standard`): the READMEs of both packages, `docs/`, `server/docs/`, `bench/`, `examples/`.
 *
 * **Code samples.** A fenced block whose info string starts with `ts` or `typescript` is compiled
 * with the TypeScript compiler API under tsconfig.json's options: `scimkit`, `scimkit/…` and
 * `@scimkit/server` resolve to their sources through the `scimkit-source` condition, as in the
 * repository's own code, so a sample is checked against the names that exist today. The conventions:
 * - A sample is a whole module: it imports what it uses and compiles alone.
 * - A sample whose first line is a comment naming a file (`// my-store.ts`) is that file, and the
 *   other samples of its page import it by that name (`./my-store.js`).
 * - A sample fenced as `ts fragment` is an excerpt of an app: it may use `app` (an Express app),
 *   `store` (a `SqlStore`) and `auth` (a `TokenVerifier`) without declaring them (FRAGMENT_GLOBALS).
 *   When the line right above its fence is an HTML comment `<!-- fragment: … -->`, the TypeScript in
 *   that comment (declarations of what the text around the sample has at hand, unseen on the
 *   rendered page) is compiled in front of it.
 * A compile error names the page and the line of the sample it is on.
 *
 * **Links.** Inline links and images, reference definitions and `<a href>` / `<img src>` that are
 * not URLs with a scheme (`https:`, `mailto:`) must name a file or folder of the repository
 * (relative to the page; `/…` from the repository's root). An `#anchor` into a Markdown file must
 * be one of its headings' slugs as GitHub makes them (lower case; everything but letters, marks,
 * digits, `_`, `-` and spaces removed; each space a `-`; a repeated slug gets `-1`, `-2`, …) or an
 * `<a id>` / `<a name>` in it. Code blocks and code spans are not read for links.
 */
const ROOT = resolve(".");

/** The names a `ts fragment` sample may use without declaring them. */
const FRAGMENT_GLOBALS = `import type { Express } from "express";
import type { TokenVerifier } from "scimkit";
import type { SqlStore } from "scimkit/sql";
declare global {
  /** The Express app the sample's router is mounted on. */
  const app: Express;
  /** The app's store: \`await sqlStore(…)\`. */
  const store: SqlStore;
  /** The router's token verifier. */
  const auth: TokenVerifier;
}
`;

const markdownFiles = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"], { encoding: "utf8" })
  .split("\n")
  .filter((file) => file !== "" && existsSync(file))
  .map((file) => resolve(file));

/** A fenced code block of a page: its info string, its first content line (1-based) and its lines, unindented. */
interface Fence {
  readonly info: string;
  readonly line: number;
  readonly lines: readonly string[];
  /** The line above the opening fence (trimmed), for a fragment's context comment. */
  readonly before: string;
}

/** A page split into its fenced blocks and its prose lines (the lines outside every block, with their numbers). */
interface Page {
  readonly file: string;
  readonly fences: readonly Fence[];
  readonly prose: readonly { readonly line: number; readonly text: string }[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`]*)$/;

function readPage(file: string): Page {
  const lines = readFileSync(file, "utf8").split("\n");
  const fences: Fence[] = [];
  const prose: { line: number; text: string }[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]!);
    if (!open) {
      prose.push({ line: index + 1, text: lines[index]! });
      continue;
    }
    const [, indent = "", marker = "", info = ""] = open;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length; index++) {
      const text = lines[index]!;
      if (text.trim().startsWith(marker[0]!.repeat(marker.length)) && text.trim().replace(/[`~]/g, "") === "") break;
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    fences.push({ info: info.trim(), line: start + 2, lines: body, before: (lines[start - 1] ?? "").trim() });
  }
  return { file, fences, prose };
}

const pages = markdownFiles.map(readPage);

// --- Code samples ------------------------------------------------------------------------------

/** A sample as the compiler sees it: a virtual file beside its page, and how its lines map back. */
interface Sample {
  readonly page: string;
  readonly fence: Fence;
  readonly fragment: boolean;
  readonly path: string;
  readonly text: string;
  /** Lines the file holds in front of the sample's first line (a fragment's context). */
  readonly offset: number;
}

const FILE_NAME = /^\/\/ ([\w.-]+\.(?:ts|mts))\s*$/;
const CONTEXT = /^<!--\s*fragment:([\s\S]*)-->$/;

function samplesOf(page: Page): Sample[] {
  const folder = join(dirname(page.file), ".docs-samples", basename(page.file, ".md"));
  return page.fences.flatMap((fence) => {
    const [language, ...flags] = fence.info.split(/\s+/);
    if (language !== "ts" && language !== "typescript") return [];
    const fragment = flags.includes("fragment");
    const named = FILE_NAME.exec(fence.lines[0] ?? "");
    const path = join(folder, named ? named[1]! : `sample-${fence.line}.ts`);
    const context = fragment ? (CONTEXT.exec(fence.before)?.[1]?.trim() ?? "") : "";
    const head = context === "" ? [] : [context];
    // `export {}` keeps a sample without imports a module, so its names stay its own.
    return [{ page: page.file, fence, fragment, path, text: [...head, ...fence.lines, "export {};", ""].join("\n"), offset: head.length }];
  });
}

const samples = pages.flatMap(samplesOf);

const config = ts.getParsedCommandLineOfConfigFile(
  "tsconfig.json",
  { noEmit: true },
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
if (!config) throw new Error("tsconfig.json could not be read");
/** The repository's files, parsed once for both programs below. */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** The compiler's complaints about the `checked` samples, each as `page:line: message` (`extra`: more virtual files). */
function compile(checked: readonly Sample[], extra: ReadonlyMap<string, string> = new Map()): string[] {
  const options = config!.options;
  // Every sample is in the program, so one can import another by its file name; only `checked` are checked.
  const virtual = new Map<string, string>(extra);
  for (const sample of samples) virtual.set(sample.path, sample.text);
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(resolve(file)) || fileExists.call(host, file);
  const folders = new Set([...virtual.keys()].map((file) => dirname(file)));
  const { directoryExists } = host;
  host.directoryExists = (folder) =>
    folders.has(resolve(folder)) || (directoryExists?.call(host, folder) ?? ts.sys.directoryExists(folder));
  host.readFile = (file) => virtual.get(resolve(file)) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, onError) => {
    const text = virtual.get(resolve(file));
    if (text !== undefined) return ts.createSourceFile(file, text, language, true);
    if (!parsed.has(file)) parsed.set(file, getSourceFile.call(host, file, language, onError));
    return parsed.get(file);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const complaints: string[] = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (diagnostic) => `(program): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
  );
  // Only the samples are checked: the sources they import are tsc's business (npm run typecheck).
  for (const sample of checked) {
    const file = program.getSourceFile(sample.path);
    if (!file) throw new Error(`${sample.path} is not in the program`);
    for (const diagnostic of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const inSample = line - sample.offset;
      const pageLine = inSample < 0 ? sample.fence.line - 2 : sample.fence.line + inSample;
      complaints.push(`${relative(ROOT, sample.page)}:${pageLine}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
    }
  }
  return complaints;
}

describe("the TypeScript samples of the docs", () => {
  it("finds the samples, whole modules and fragments", () => {
    expect(samples.filter((sample) => !sample.fragment).length).toBeGreaterThan(5);
    expect(samples.filter((sample) => sample.fragment).length).toBeGreaterThan(10);
    expect(new Set(samples.map((sample) => sample.path)).size).toBe(samples.length);
  });

  // Two programs: a whole module must not lean on the names fragments are given.
  it("compiles every whole-module sample on its own", { timeout: 120_000 }, () => {
    expect(compile(samples.filter((sample) => !sample.fragment))).toEqual([]);
  });

  it("compiles every fragment with the app, store and verifier it may take as given", { timeout: 120_000 }, () => {
    const globals = join(ROOT, "test", ".docs-samples", "fragment-globals.ts");
    expect(
      compile(
        samples.filter((sample) => sample.fragment),
        new Map([[globals, FRAGMENT_GLOBALS]]),
      ),
    ).toEqual([]);
  });
});

// --- Links and anchors -------------------------------------------------------------------------

/** GitHub's slug of a heading's text: markup dropped, lower case, punctuation removed, spaces to `-`. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`/g, "");
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a page offers: its headings' slugs (repeats numbered) and its `<a id|name>`s. */
function anchorsOf(page: Page): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of page.prose) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const named of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(named[1]!);
  }
  return anchors;
}

const anchorsByPage = new Map(pages.map((page) => [page.file, anchorsOf(page)]));

/** The link targets written on a prose line, code spans left out. */
function targetsOn(text: string): string[] {
  const prose = text.replace(/(`+)[\s\S]*?\1/g, "");
  const targets: string[] = [];
  for (const link of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g))
    targets.push(link[1]!.replace(/^<|>$/g, ""));
  const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
  if (definition) targets.push(definition[1]!.replace(/^<|>$/g, ""));
  for (const html of prose.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]*)"/g)) targets.push(html[1]!);
  return targets;
}

/** What is wrong with `target` written on `page`, or undefined when it lands. */
function brokenLink(page: Page, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined;
  const hash = target.indexOf("#");
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === "" ? page.file : path.startsWith("/") ? join(ROOT, path) : resolve(dirname(page.file), path);
  if (!existsSync(file)) return `no file ${relative(ROOT, file)}`;
  if (anchor === undefined || !file.endsWith(".md")) return undefined;
  const anchors = anchorsByPage.get(file) ?? anchorsOf(readPage(file));
  return anchors.has(anchor) ? undefined : `no heading or <a id> "${anchor}" in ${relative(ROOT, file)}`;
}

describe("the links of the docs", () => {
  const links = pages.flatMap((page) => page.prose.flatMap(({ line, text }) => targetsOn(text).map((target) => ({ page, line, target }))));

  it("finds the pages and their links", () => {
    for (const page of ["README.md", "server/README.md", "docs/architecture.md", "server/docs/analytics.md"]) {
      expect(markdownFiles).toContain(resolve(page));
    }
    expect(links.filter(({ target }) => !/^[a-z]+:/.test(target)).length).toBeGreaterThan(150);
    expect(links.filter(({ target }) => target.includes("#")).length).toBeGreaterThan(50);
  });

  it("slugs headings as GitHub does", () => {
    expect(githubSlug("8.4 An identity-provider tolerance")).toBe("84-an-identity-provider-tolerance");
    expect(githubSlug("SCIM tokens *(addition)*")).toBe("scim-tokens-addition");
    expect(githubSlug("`GET /organizations/{id}` *(addition: the target of `Location`)*")).toBe(
      "get-organizationsid-addition-the-target-of-location",
    );
    expect(githubSlug("The host server (`npm start`, `scimkit serve`)")).toBe("the-host-server-npm-start-scimkit-serve");
    expect(githubSlug("Where a receiver may be (the address rules)")).toBe("where-a-receiver-may-be-the-address-rules");
  });

  it("lands every relative link on a file of the repository, and every #anchor on a heading", () => {
    const broken = links.flatMap(({ page, line, target }) => {
      const why = brokenLink(page, target);
      return why === undefined ? [] : [`${relative(ROOT, page.file)}:${line}: (${target}) ${why}`];
    });
    expect(broken).toEqual([]);
  });
});

// --- Commands the docs give for a checkout -----------------------------------------------------

describe("the commands the docs give for a checkout", () => {
  it("runs the scimkit command from source: npm run scimkit -- --version", { timeout: 60_000 }, () => {
    const run = spawnSync("npm", ["run", "--silent", "scimkit", "--", "--version"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync("server/package.json", "utf8")).version);
  });

  it("generates an OAuth signing key with the checkout's one-liner of server/docs/configuration.md", { timeout: 60_000 }, () => {
    const page = readFileSync("server/docs/configuration.md", "utf8");
    const command = /`(node --conditions=scimkit-source --import tsx [^`]*generateSigningKey[^`]*)`/.exec(page)?.[1];
    if (command === undefined) throw new Error("server/docs/configuration.md no longer gives the checkout's signing-key command");
    const run = spawnSync("sh", ["-c", command], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kty: expect.any(String), d: expect.any(String) });
  });
});
