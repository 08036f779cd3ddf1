/**
 * `GET /regions`, `GET /regions/organizations` and `GET /regions/summary` (issue 30): data
 * residency as the operator sees it from this host, and the moves. Operator only: they name
 * organizations of every region, or sum every region's.
 */
import { conflict, invalidRequest, notFound } from "../analytics-problem.js";
import { isRegionMoveRefusal, type RegionMove, type RegionMoveRefusal, type RegionMoves } from "../region-moves-view.js";
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { RegionsView } from "../regions-view.js";
import { sendJson } from "../send-json.js";

type RegionHandlers = Pick<
  AnalyticsHandlers,
  | "getRegions"
  | "listRegionOrganizations"
  | "getRegionsSummary"
  | "moveOrganization"
  | "listRegionMoves"
  | "getRegionMove"
  | "cancelRegionMove"
>;

const oneRegion = (): Error =>
  notFound(
    "This service runs in one region: there are no regions to show (on the scimkit host, SCIMKIT_REGION and SCIMKIT_REGIONS set them).",
  );

/** The moves of this host, or the 404 that says why there are none. */
function movesOf(regions: RegionsView | undefined): RegionMoves {
  if (regions === undefined) throw oneRegion();
  if (regions.moves === undefined) {
    throw notFound(
      "This host moves no organizations: a move needs SCIMKIT_REGION_KEY and the other regions, a SQL store (SQLite or PostgreSQL, not memory:), and one process (SCIMKIT_WORKERS=1).",
    );
  }
  return regions.moves;
}

/** The move, or the refusal as the problem of its status. */
function moved(result: RegionMove | RegionMoveRefusal): RegionMove {
  if (!isRegionMoveRefusal(result)) return result;
  if (result.status === 400) throw invalidRequest([{ field: "/to", message: result.detail }]);
  if (result.status === 409) throw conflict(result.detail);
  throw notFound(result.detail);
}

/** The handlers of the `/regions` operations; 404 on a service of one region. */
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
    async getRegionsSummary(call) {
      if (regions === undefined) throw oneRegion();
      if (regions.summary === undefined) throw notFound("This host counts no region's totals: it serves no analytics store.");
      sendJson(call.response, 200, await regions.summary());
    },
    async moveOrganization(call) {
      const moves = movesOf(regions);
      const { organizationId, to } = call.body as { organizationId: string; to: string };
      const move = moved(await moves.start(organizationId, to, call.caller?.keyId));
      sendJson(call.response, 202, move);
    },
    async listRegionMoves(call) {
      sendJson(call.response, 200, { data: await movesOf(regions).list() });
    },
    async getRegionMove(call) {
      const id = call.params["id"] as string;
      const move = await movesOf(regions).get(id);
      if (move === undefined) throw notFound(`This host took part in no move of organization ${id}.`);
      sendJson(call.response, 200, move);
    },
    async cancelRegionMove(call) {
      sendJson(call.response, 200, moved(await movesOf(regions).cancel(call.params["id"] as string)));
    },
  };
}
