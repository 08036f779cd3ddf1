/**
 * This region's totals for the other regions' hosts (issue 30, point 5): `GET /regions/v1/aggregates`
 * answers `{ region, at, organizations, users, activeUsers, groups }` — counts only, no row of an
 * organization or a person — for whoever presents `SCIMKIT_REGION_KEY` (RFC 6750 §2.1), checked
 * before anything is counted.
 */
import { type Request, type Response, Router } from "express";
import type { RegionAggregates } from "@scimkit/server";
import { requireRegionKey } from "./region-key.js";

/** The feed's router, for the host to mount at `/regions/v1`. */
export function regionAggregatesFeed(options: { readonly key: string; readonly aggregates: () => Promise<RegionAggregates> }): Router {
  const router = Router();
  router.get("/aggregates", requireRegionKey(options.key), async (_request: Request, response: Response, next) => {
    try {
      const { region, at, organizations, users, activeUsers, groups } = await options.aggregates();
      response.setHeader("Cache-Control", "no-store");
      response.json({ region, at, organizations, users, activeUsers, groups } satisfies RegionAggregates);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
