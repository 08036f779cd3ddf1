/**
 * Organizations (spec §4.6): list, create (with the first SCIM token, spec §2.1 and §5), get,
 * rename / suspend / move in the tree (issue 17), and delete with everything of the organization
 * — or of its whole subtree when asked.
 */
import { v7 } from "uuid";
import { conflict, forbidden, invalidRequest, notFound } from "../analytics-problem.js";
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { Organization, OrganizationChange, OrganizationStatus } from "../analytics-store.js";
import { describeTreeRefusal, isOrganizationTreeError } from "../organization-tree-error.js";
import { renderOrganization } from "../render-resources.js";
import { organizationUsersReport } from "../report-kinds.js";
import { sendJson, sendNoContent } from "../send-json.js";
import { issueWhileExists } from "../issue-while-exists.js";
import type { RegionsView } from "../regions-view.js";
import { startReport } from "./start-report.js";

type OrganizationHandlers = Pick<
  AnalyticsHandlers,
  | "listOrganizations"
  | "createOrganization"
  | "getOrganization"
  | "updateOrganization"
  | "deleteOrganization"
  | "getOrganizationSummary"
  | "createOrganizationReport"
>;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");
// Only the operator creates organizations and it sees them all, so this says nothing it could not list.
const idTaken = (): Error => conflict("An organization with this id exists; choose another id, or leave `id` out for a new UUID.");

/**
 * Issue 30: an organization is created in the region of the host asked — its data, token first,
 * is written in that region's database only — and its id is one path in every region, so an id
 * another region holds (as far as this host's copy of its directory knows) is taken.
 */
function checkHomeRegion(regions: RegionsView | undefined, homeRegion: string | undefined, id: string | undefined): void {
  if (homeRegion !== undefined) {
    if (regions === undefined) {
      throw invalidRequest([{ field: "/homeRegion", message: "this service runs in one region: leave homeRegion out" }]);
    }
    const url = regions.baseUrls[homeRegion];
    if (url === undefined) {
      throw invalidRequest([
        {
          field: "/homeRegion",
          message: `there is no region ${homeRegion}; the regions are ${Object.keys(regions.baseUrls).sort().join(", ")}`,
        },
      ]);
    }
    if (homeRegion !== regions.self) {
      throw invalidRequest([
        {
          field: "/homeRegion",
          message: `this host serves region ${regions.self}: create an organization homed in ${homeRegion} at that region's host, POST ${url}/analytics/v1/organizations, so that its data is written there only`,
        },
      ]);
    }
  }
  const elsewhere = id === undefined ? undefined : regions?.homeElsewhere(id);
  if (elsewhere !== undefined) {
    throw conflict(
      `An organization with this id exists in region ${elsewhere.homeRegion}: an id is one SCIM path in every region; choose another id.`,
    );
  }
}

const deletedMeanwhile = (): Error =>
  conflict(
    "The organization was deleted (with its parent's subtree, or by id) while it was being created; create it again if it is still wanted.",
  );

/**
 * `work`, with a store's refusal of a tree change as the problem a client can act on: an unknown
 * parent is a bad `parentId` (400), a cycle, the depth bound or children left behind clash with
 * the tree as it is (409).
 */
async function treeChecked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isOrganizationTreeError(error)) throw error;
    const detail = describeTreeRefusal(error.refusal, "`?subtree=true`");
    if (error.refusal.kind === "unknown-parent") throw invalidRequest([{ field: "/parentId", message: detail }]);
    throw conflict(detail);
  }
}

/** The handlers of the organization operations. */
export function organizationHandlers(dependencies: AnalyticsDependencies): OrganizationHandlers {
  const { store, scimTokens, now } = dependencies;
  return {
    async listOrganizations(call) {
      const status = call.query["status"] as OrganizationStatus | undefined;
      const parentId = call.query["parentId"] as string | undefined;
      const page = await store.listOrganizations(call.scope, call.page(), {
        ...(status === undefined ? {} : { status }),
        ...(parentId === undefined ? {} : { parentId }),
      });
      call.sendPage(page, renderOrganization);
    },

    async createOrganization({ request, response, body, baseUrl }) {
      const { name, id, compatibility, existingUsers, parentId, homeRegion } = body as Pick<
        Organization,
        "compatibility" | "existingUsers" | "parentId"
      > & {
        readonly name: string;
        readonly id?: string;
        readonly homeRegion?: string;
      };
      checkHomeRegion(dependencies.regions, homeRegion, id);
      const at = now().toISOString();
      // The schema has checked a chosen id (a SCIM path segment); without one, a UUID.
      const organization: Organization = {
        id: id ?? v7(),
        name: name.trim(),
        status: "active",
        ...(compatibility === undefined ? {} : { compatibility }),
        ...(existingUsers === undefined ? {} : { existingUsers }),
        ...(parentId === undefined ? {} : { parentId }),
        createdAt: at,
        updatedAt: at,
      };
      // Checked against every organization, whatever the caller's scope: an id is one path for all.
      if (id !== undefined && (await store.getOrganization({ all: true }, id)) !== undefined) throw idTaken();
      try {
        await treeChecked(() => store.createOrganization(organization, { clearLeftovers: true }));
      } catch (error) {
        // A concurrent create with the same id: the store's key refused ours.
        if (id !== undefined && (await store.getOrganization({ all: true }, id)) !== undefined) throw idTaken();
        throw error;
      }
      const issued = await issueWhileExists(dependencies, organization, { label: "issued when the organization was created" });
      if (issued === undefined) throw deletedMeanwhile();
      response.setHeader("Location", `${baseUrl}/organizations/${encodeURIComponent(organization.id)}`);
      // The body holds a credential: no cache may keep it (RFC 9111 §5.2.2.5).
      response.setHeader("Cache-Control", "no-store");
      sendJson(response, 201, {
        organization: renderOrganization(organization),
        scim: {
          baseUrl: dependencies.scimBaseUrl(organization.id, request),
          token: issued.token,
          ...(dependencies.regions === undefined ? {} : { region: dependencies.regions.self }),
        },
      });
    },

    async getOrganization({ response, params, scope }) {
      const organization = await store.getOrganization(scope, params["id"] ?? "");
      if (organization === undefined) throw noSuchOrganization();
      sendJson(response, 200, renderOrganization(organization));
    },

    async updateOrganization({ response, params, body, scope, caller }) {
      const change = body as Omit<OrganizationChange, "updatedAt">;
      const id = params["id"] ?? "";
      // Scope first: an organization the caller may not see is 404, whatever the body says.
      if ((await store.getOrganization(scope, id)) === undefined) throw noSuchOrganization();
      if (change.status !== undefined && caller?.kind !== "operator")
        throw forbidden("Only the operator changes an organization's status; an admin may change its name.");
      if (change.cascade === true && change.status === undefined)
        throw invalidRequest([{ field: "/cascade", message: "goes with status: it gives the new status to every descendant too" }]);
      if (change.parentId !== undefined && caller?.kind !== "operator")
        throw forbidden("Only the operator moves an organization in the tree; an admin may change its name.");
      const updated = await treeChecked(() =>
        store.updateOrganization(scope, id, {
          ...(change.name === undefined ? {} : { name: change.name.trim() }),
          ...(change.status === undefined ? {} : { status: change.status }),
          // An organization's admin may choose how its own identity provider is served.
          ...(change.compatibility === undefined ? {} : { compatibility: change.compatibility }),
          ...(change.existingUsers === undefined ? {} : { existingUsers: change.existingUsers }),
          ...(change.parentId === undefined ? {} : { parentId: change.parentId }),
          ...(change.cascade === true ? { cascade: true } : {}),
          updatedAt: now().toISOString(),
        }),
      );
      if (updated === undefined) throw noSuchOrganization();
      sendJson(response, 200, renderOrganization(updated));
    },

    async getOrganizationSummary({ response, params, scope, query }) {
      const id = params["id"] ?? "";
      // Without subtree, the organization alone: its own row, if the caller may see it.
      const within = query["subtree"] === true || (!("all" in scope) && !scope.orgIds.includes(id)) ? scope : { orgIds: [id] };
      const summary = await store.treeSummary(within, id, { asOf: now().toISOString(), people: query["people"] === true });
      if (summary === undefined) throw noSuchOrganization();
      const { orgId, organizations, ...rest } = summary;
      sendJson(response, 200, {
        organizationId: orgId,
        organizations: organizations.map(({ orgId: organizationId, ...figures }) => ({ organizationId, ...figures })),
        ...rest,
      });
    },

    async createOrganizationReport(call) {
      const id = call.params["id"] ?? "";
      if ((await store.getOrganization(call.scope, id)) === undefined) throw noSuchOrganization();
      // The report reads the whole subtree: only for a caller that sees all of it.
      const scope = call.scope;
      if (!("all" in scope) && !(await store.listSubtreeIds([id])).every((member) => scope.orgIds.includes(member)))
        throw forbidden("This organization has descendants you may not see: ask for a grant of its subtree, or the operator.");
      await startReport(dependencies, call, organizationUsersReport, { id, orgId: id });
    },

    async deleteOrganization({ response, params, scope, query }) {
      const id = params["id"] ?? "";
      const subtree = query["subtree"] === true;
      // Read first for the token store below; a child added meanwhile is the store's to refuse or
      // take along, and the stores scimkit ships revoke its tokens themselves.
      const members = subtree ? await store.listSubtreeIds([id]) : [id];
      if (!(await treeChecked(() => store.deleteOrganization(scope, id, { subtree })))) throw noSuchOrganization();
      // The store deletes the SCIM tokens it shares storage with; a token store kept elsewhere
      // (the memory one) must lose them too, or the deleted organization's tokens would still work.
      for (const member of members) await scimTokens.revokeAll(member);
      sendNoContent(response);
    },
  };
}
