/**
 * This region's half of the directory (issue 30, point 2): `GET /regions/v1/directory` lists the
 * organizations homed here — id, name, parent, state, last change, nothing personal — for the
 * hosts of the other regions, which keep a replica of it. Only they may read it: the caller
 * presents `SCIMKIT_REGION_KEY` as a bearer token (RFC 6750 §2.1), compared as digests in constant
 * time. A page is at most `MAX_DIRECTORY_PAGE` organizations, by id, so a reader can never make
 * this host build more than one page per request.
 */
import { type Request, type Response, Router } from "express";
import type { AnalyticsStore } from "@scimkit/server";
import { requireRegionKey } from "./region-key.js";

/** The most organizations one page of the feed holds. */
export const MAX_DIRECTORY_PAGE = 1000;

/** An organization as the feed lists it. */
export interface DirectoryFeedEntry {
  readonly id: string;
  readonly name: string;
  readonly parentId?: string;
  readonly status: "active" | "suspended";
  readonly updatedAt: string;
}

/** One page of the feed. */
export interface DirectoryFeedPage {
  /** The region whose organizations these are: the region this host serves. */
  readonly region: string;
  readonly organizations: readonly DirectoryFeedEntry[];
  /** `after` for the next page; absent on the last. */
  readonly next?: string;
}

function refuse(response: Response, status: number, detail: string): void {
  response.status(status).json({ status, detail });
}

/** The feed's router, for the host to mount at `/regions/v1`. */
export function regionDirectoryFeed(options: {
  readonly self: string;
  readonly key: string;
  readonly store: Pick<AnalyticsStore, "listOrganizations">;
  /** Organizations of this database that are not homed here: arriving from a move, or left in one. */
  readonly notHomed?: (orgId: string) => boolean;
}): Router {
  const router = Router();
  router.get("/directory", requireRegionKey(options.key), async (request: Request, response: Response, next) => {
    const limitText = typeof request.query["limit"] === "string" ? request.query["limit"] : String(MAX_DIRECTORY_PAGE);
    const after = request.query["after"];
    const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_DIRECTORY_PAGE) || (after !== undefined && (typeof after !== "string" || after.length > 200))) {
      refuse(response, 400, `limit is 1 to ${MAX_DIRECTORY_PAGE}; after is the next of the previous page, once.`);
      return;
    }
    try {
      const page = await options.store.listOrganizations({ all: true }, { limit, ...(after === undefined ? {} : { after }) });
      const body: DirectoryFeedPage = {
        region: options.self,
        organizations: page.items
          .filter((organization) => options.notHomed?.(organization.id) !== true)
          .map(({ id, name, parentId, status, updatedAt }) => ({
            id,
            name,
            ...(parentId === undefined ? {} : { parentId }),
            status,
            updatedAt,
          })),
        ...(page.next === undefined ? {} : { next: page.next }),
      };
      response.setHeader("Cache-Control", "no-store");
      response.json(body);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
