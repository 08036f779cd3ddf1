/**
 * Express 4 does not forward a rejected promise from a handler to the error handler (Express 5
 * does); wrapping every async handler makes both behave like Express 5.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * `handler` as an Express handler whose rejection goes to the error handler, on Express 4 as on 5.
 *
 * @example router.get("/reports/:id", asyncHandler(async (request, response) => { response.json(await load(request.params.id)); }));
 */
export function asyncHandler(handler: (request: Request, response: Response, next: NextFunction) => Promise<void>): RequestHandler {
  return (request, response, next) => {
    handler(request, response, next).catch(next);
  };
}
