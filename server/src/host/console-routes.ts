/**
 * The operator console (issue 18) at `/console`: the static files Vite built from `console/` into
 * `dist/console/`, served with a strict Content-Security-Policy. The console is a client of the
 * analytics interface and nothing more; it holds no secret of its own.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type RequestHandler, type Response, Router } from "express";

/**
 * Everything the console needs comes from the host itself: no inline script or style, no frame
 * around it (clickjacking a token-issuing page), no `<base>` rewriting, forms posting only here.
 * `img-src data:` is for the SVG icons the stylesheet inlines.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Where the built console is: beside the compiled host in the package (`dist/host` → `dist/console`),
 * or, when the host runs from source (`npm start`), in the checkout's `dist/console`.
 */
export function defaultConsoleDir(): string {
  const packaged = fileURLToPath(new URL("../console/", import.meta.url));
  if (existsSync(join(packaged, "index.html"))) return packaged;
  return fileURLToPath(new URL("../../dist/console/", import.meta.url));
}

/** Headers every console response carries, the 503 and 404 included. */
function secure(response: Response): void {
  response.setHeader("Content-Security-Policy", CONSOLE_CSP);
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "no-referrer");
  response.setHeader("X-Frame-Options", "DENY");
}

/**
 * The console's routes, to mount at `/console`. Hashed files under `assets/` are cached for a
 * year (their names change with their content); `index.html` is revalidated each time, so a new
 * build is picked up on the next load. Any other GET is a client route and gets `index.html`.
 * Without a build the answer is 503 saying how to make one.
 *
 * @param dir The directory Vite built into (`defaultConsoleDir()`).
 */
export function consoleRoutes(dir: string = defaultConsoleDir()): Router {
  const router = Router();
  const indexFile = join(dir, "index.html");
  let index: { readonly html: Buffer; readonly mtimeMs: number } | undefined;
  /** index.html as it is now: read again when a new build replaced it (its assets' names changed with it). */
  const currentIndex = (): Buffer | undefined => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(indexFile).mtimeMs;
    } catch {
      index = undefined;
      return undefined;
    }
    if (index?.mtimeMs !== mtimeMs) index = { html: readFileSync(indexFile), mtimeMs };
    return index.html;
  };
  const headers: RequestHandler = (_request, response, next) => {
    secure(response);
    next();
  };
  router.use(headers);
  router.use(
    express.static(dir, {
      index: false,
      redirect: false,
      setHeaders: (response, path) => {
        response.setHeader("Cache-Control", path.includes(`${join(dir, "assets")}`) ? "public, max-age=31536000, immutable" : "no-cache");
      },
    }),
  );
  router.use((request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("Allow", "GET, HEAD");
      response.status(405).type("text/plain").send("The console is read with GET.\n");
      return;
    }
    // A missing hashed file is a stale page asking for an old build's script: not a client route.
    if (request.path.startsWith("/assets/")) {
      response.status(404).type("text/plain").send("No such console file; reload the page.\n");
      return;
    }
    // A build made or remade after the host started is served without a restart.
    const html = currentIndex();
    if (html === undefined) {
      response
        .status(503)
        .type("text/plain")
        .send(
          `The operator console is not built (no ${indexFile}). Run \`npm run build\` in the scimkit checkout ` +
            "(`npm start` builds it when it is missing), then reload this page.\n",
        );
      return;
    }
    response.setHeader("Cache-Control", "no-cache");
    response.type("html").send(html);
  });
  return router;
}
