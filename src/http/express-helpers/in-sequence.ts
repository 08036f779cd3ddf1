/**
 * Middleware that every request runs, one after another, as one layer of the router: Express's
 * router matches the path, merges the parameters (`mergeParams`) and builds a `next` for every
 * layer it walks, which for the SCIM router's eight unconditional layers cost more per request
 * than the work of most of them (issue 29: ~20 µs of a memory PATCH's ~550).
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * One handler that runs `handlers` in order: each one's `next()` runs the next one, and the
 * last one's the router's; `next(error)` (or `"route"`, `"router"`) goes to the router at once,
 * skipping the rest, as it would from a layer of its own. A handler that throws, or whose promise
 * rejects, passes its error on the same way (as Express 5 does for a layer, and Express 4 does not).
 *
 * @example router.use(inSequence([assignRequestId(), boundUnreadBody(), resolveOrganization(options)]));
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0] as RequestHandler;
  // Returned and passed as arguments, never bound to a name: under tsx (`npm start`, the benchmark)
  // esbuild's keepNames gives every named closure a `defineProperty` call, ~0.5 µs each request.
  return (request: Request, response: Response, next: NextFunction) => runFrom(handlers, 0, request, response, next);
}

/** Runs `handlers[index]` with a `next` that runs the one after it. */
function runFrom(handlers: readonly RequestHandler[], index: number, request: Request, response: Response, next: NextFunction): void {
  const handler = handlers[index];
  if (handler === undefined) {
    next();
    return;
  }
  try {
    const returned: unknown = handler(request, response, (signal?: unknown) => {
      if (signal === undefined) runFrom(handlers, index + 1, request, response, next);
      else next(signal);
    });
    // As Express 5 does for a layer whose promise rejects without a reason.
    if (returned instanceof Promise) returned.catch((error: unknown) => next(error ?? new Error("Rejected promise")));
  } catch (error) {
    next(error);
  }
}
