/**
 * Writes SCIM JSON responses: always `application/scim+json` (RFC 7644 §3.1) with
 * `X-Content-Type-Options: nosniff`, and the `ETag` of a single resource (RFC 7644 §3.14).
 */
import type { Response } from "express";
import { entityTag } from "../../store/resource-view.js";
import { hasLargeArray } from "./json-pieces.js";
import { setNoSniff } from "./no-sniff.js";
import { noteResponseText } from "../request-log/response-text-keeper.js";
import { type JsonSink, writeJsonInPieces } from "./write-json-in-pieces.js";

export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

/**
 * The headers of every SCIM body: its media type, and `nosniff` so that no browser reads a body
 * that echoes client input (an error's detail, a display name) as anything but JSON.
 */
function setScimHeaders(response: Response): void {
  response.setHeader("Content-Type", SCIM_CONTENT_TYPE);
  setNoSniff(response);
}

/**
 * Sends `body` as SCIM JSON with `status`. Written with `end` rather than `res.send`: `send` would
 * hash every list body for an ETag nobody asked for, and lists of 100 resources are the bulk of
 * what an identity provider reads. Resource ETags come from `meta.version` instead.
 */
export function sendScim(response: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  setScimHeaders(response);
  response.setHeader("Content-Length", Buffer.byteLength(text));
  noteResponseText(response, text);
  response.end(text);
}

/**
 * `sendScim` for a body that may hold a group's every member (architecture §4b): one with an array of
 * more than `LARGE_ARRAY` elements is written in pieces between turns of the event loop, without a
 * `Content-Length` (so chunked); any other takes `sendScim` as it is.
 */
export async function sendScimInSlices(response: Response, status: number, body: unknown): Promise<void> {
  if (!hasLargeArray(body)) {
    sendScim(response, status, body);
    return;
  }
  response.statusCode = status;
  setScimHeaders(response);
  // The provisioning log reads what is written through `noteResponseText`.
  const sink: JsonSink = {
    write: (text) => {
      noteResponseText(response, text);
      return response.write(text);
    },
    end: (text) => {
      noteResponseText(response, text);
      return response.end(text);
    },
    get destroyed() {
      return response.destroyed;
    },
    once: (event, listener) => response.once(event, listener),
    removeListener: (event, listener) => response.removeListener(event, listener),
  };
  await writeJsonInPieces(sink, body);
}

/** Sends one resource with its `ETag`, and `Location` when it was just created (RFC 7644 §3.3). */
export async function sendResource(response: Response, status: number, body: unknown, version: string, location?: string): Promise<void> {
  response.setHeader("ETag", entityTag(version));
  if (location) response.setHeader("Location", location);
  await sendScimInSlices(response, status, body);
}
