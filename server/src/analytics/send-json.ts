/**
 * Writes the analytics router's JSON responses and problems. Written with `end`, as the SCIM
 * router does, so the same code runs on Express 4 and 5 and no ETag is computed for lists.
 */
import type { Response } from "express";
import type { ProblemDetails } from "./analytics-problem.js";
import { PROBLEM_TYPE } from "./definitions/schema-validators.js";

/**
 * The headers of every analytics body: its media type, and `nosniff` so that no browser reads a
 * body that echoes client input (a name, a problem's detail) as HTML or script.
 */
export function setBodyHeaders(response: Response, contentType: string): void {
  response.setHeader("Content-Type", contentType);
  response.setHeader("X-Content-Type-Options", "nosniff");
}

/** Sends `body` as `application/json` with `status`. */
export function sendJson(response: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  setBodyHeaders(response, "application/json; charset=utf-8");
  response.setHeader("Content-Length", Buffer.byteLength(text));
  response.end(text);
}

/** Sends `body`, which holds a secret shown only here, as JSON: no cache between us and its one reader keeps it. */
export function sendSecret(response: Response, status: number, body: unknown): void {
  response.setHeader("Cache-Control", "no-store");
  sendJson(response, status, body);
}

/** Sends an RFC 9457 problem as `application/problem+json`, its `status` the response's. */
export function sendProblem(response: Response, problem: ProblemDetails): void {
  const text = JSON.stringify(problem);
  response.statusCode = problem.status;
  setBodyHeaders(response, `${PROBLEM_TYPE}; charset=utf-8`);
  response.setHeader("Content-Length", Buffer.byteLength(text));
  response.end(text);
}

/** Sends 204 No Content. */
export function sendNoContent(response: Response): void {
  response.statusCode = 204;
  response.end();
}
