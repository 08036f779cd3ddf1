/**
 * Writes SCIM JSON responses: always `application/scim+json` (RFC 7644 §3.1), and the `ETag` of
 * a single resource (RFC 7644 §3.14).
 */
import type { Response } from "express";
import { entityTag } from "../store/resource-view.js";

export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

/** Sends `body` as SCIM JSON with `status`. */
export function sendScim(response: Response, status: number, body: unknown): void {
  response.status(status).set("Content-Type", SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Sends one resource with its `ETag`, and `Location` when it was just created (RFC 7644 §3.3). */
export function sendResource(response: Response, status: number, body: unknown, version: string, location?: string): void {
  response.set("ETag", entityTag(version));
  if (location) response.set("Location", location);
  sendScim(response, status, body);
}
