/**
 * `GET /regions` (issue 30): data residency as the operator sees it from this host. Operator
 * only: the counts name organizations of every region.
 */
import { notFound } from "../analytics-problem.js";
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { RegionsView } from "../regions-view.js";
import { sendJson } from "../send-json.js";

type RegionHandlers = Pick<AnalyticsHandlers, "getRegions">;

/** The handler of `GET /regions`; 404 on a service of one region. */
export function regionHandlers(regions: RegionsView | undefined): RegionHandlers {
  return {
    async getRegions(call) {
      if (regions === undefined) {
        throw notFound(
          "This service runs in one region: there are no regions to show (on the scimkit host, SCIMKIT_REGION and SCIMKIT_REGIONS set them).",
        );
      }
      sendJson(call.response, 200, regions.report());
    },
  };
}
