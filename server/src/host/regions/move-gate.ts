/**
 * What a SCIM or OAuth request meets while its organization moves between regions (issue 30,
 * point 4), before authentication, from memory (`RegionMoveBook.gate`):
 * - on the source, from the freeze to the switch, a write is answered 503 with `Retry-After`
 *   (RFC 9110 §15.6.4): it reached no verdict, and the identity provider retries it — here, or
 *   after the switch at the target, which the 421 then names. Reads are served, from the source's
 *   data, which no write changes any more. Never a lost write: writes that passed before the
 *   freeze are counted (`enter`), and the copy starts once they have finished.
 * - on the source after the switch, and on the target before it: 421, naming the region that
 *   holds the organization now (`misdirected-request.ts`).
 * The OAuth token endpoint is not frozen: issuing an access token writes no organization data.
 */
import type { RequestHandler } from "express";
import { ScimError } from "scimkit/core";
import { MOVE_RETRY_AFTER_SECONDS } from "@scimkit/server";
import { misdirectedError } from "./misdirected-request.js";
import type { RegionDirectory } from "./region-directory.js";
import type { RegionMoveBook } from "./region-move-book.js";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The detail of a write refused while `orgId` moves to `to`. */
export function frozenDetail(orgId: string, to: string): string {
  return `Organization ${orgId} is moving to region ${to}: writes are refused for the few seconds of the cut-over, and nothing written before was lost. Retry in ${MOVE_RETRY_AFTER_SECONDS} seconds; once the move is over, this host answers with the new base URL.`;
}

/** Middleware for `/scim/Organizations/:orgId` and `/oauth/Organizations/:orgId`. */
export function moveGate(book: RegionMoveBook, directory: RegionDirectory, surface: "scim" | "oauth"): RequestHandler {
  return (request, response, next) => {
    const orgId: unknown = request.params["orgId"];
    if (typeof orgId !== "string") {
      next();
      return;
    }
    const gate = book.gate(orgId);
    if (gate?.kind === "arriving") {
      next(misdirectedError(directory, { id: orgId, homeRegion: gate.from }, surface));
      return;
    }
    if (gate?.kind === "left") {
      next(misdirectedError(directory, { id: orgId, homeRegion: gate.to }, surface));
      return;
    }
    if (surface === "oauth" || READS.has(request.method)) {
      next();
      return;
    }
    if (gate?.kind === "frozen") {
      next(new ScimError(503, undefined, frozenDetail(orgId, gate.to), [], { retryAfter: MOVE_RETRY_AFTER_SECONDS }));
      return;
    }
    // Counted until the response is over ('close' follows 'finish', and comes alone when the client left).
    response.once("close", book.enter(orgId));
    next();
  };
}
