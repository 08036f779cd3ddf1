/**
 * `GET /regions` and `GET /regions/organizations` (issue 30): data residency as the operator sees
 * it from this host. Operator only: they name organizations of every region.
 */
import { notFound } from "../analytics-problem.js";
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { RegionsView } from "../regions-view.js";
import { sendJson } from "../send-json.js";

type RegionHandlers = Pick<AnalyticsHandlers, "getRegions" | "listRegionOrganizations">;

const oneRegion = (): Error =>
  notFound(
    "This service runs in one region: there are no regions to show (on the scimkit host, SCIMKIT_REGION and SCIMKIT_REGIONS set them).",
  );

/** The handlers of `GET /regions` and `GET /regions/organizations`; 404 on a service of one region. */
export function regionHandlers(regions: RegionsView | undefined): RegionHandlers {
  return {
    async getRegions(call) {
      if (regions === undefined) throw oneRegion();
      sendJson(call.response, 200, regions.report());
    },
    async listRegionOrganizations(call) {
      if (regions === undefined) throw oneRegion();
      const region = call.query["region"];
      const page = regions.listElsewhere(call.page(), typeof region === "string" ? region : undefined);
      call.sendPage(page, (organization) => ({
        ...organization,
        scimBaseUrl: regions.scimBaseUrl(organization.homeRegion, organization.id),
      }));
    },
  };
}
