/**
 * Express 4 does not forward a rejected promise from a handler to the error handler (Express 5
 * does); wrapping every async handler makes both behave like Express 5.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

export function asyncHandler(handler: (request: Request, response: Response, next: NextFunction) => Promise<void>): RequestHandler {
  return (request, response, next) => {
    handler(request, response, next).catch(next);
  };
}
