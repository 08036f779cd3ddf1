/**
 * The query at the service root (RFC 7644 §3.4.2.1): `GET /` with the list parameters in the
 * query string and `POST /.search` with them in a SearchRequest body (§3.4.3), across every
 * resource type of the registry. A thin shell over `searchAllTypes`, as a type's list route is
 * over the resource service.
 *
 * `GET /` with no parameter at all is the same query, unfiltered: RFC 7644 gives the root no other
 * meaning, and §3.4.2.1 says a root query includes "all resources within the server ..., subject
 * to filtering". It pages like any list (`paging.defaultPageSize`).
 */
import type { Response, Router } from "express";
import { eventLoopSlice, pauseIfDue } from "../../event-loop-slice.js";
import { createProjection, type Projection } from "../../scim/schema/create-projection.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { asyncHandler } from "../express-helpers/async-handler.js";
import { listParametersFromBody, listParametersFromQuery, type ListParameters } from "../search/list-parameters.js";
import type { ListPageConfig } from "../search/list-resources-page.js";
import { listResponseBody } from "../search/list-response.js";
import { queryOf } from "../express-helpers/query-of.js";
import { scimContext } from "../request-context/scim-request-context.js";
import { searchAllTypes } from "../search/search-all-types.js";
import { sendScimInSlices } from "../sending/send-scim.js";
import type { TypeHandler } from "../resource-service/type-handler.js";
import { workAdmission, type WorkAdmission } from "../fair-share/work-admission.js";

/** Registers `GET /` and `POST /.search` on `router`, searching `types`. */
export function registerRootSearchRoute(
  router: Router,
  config: ListPageConfig,
  types: readonly TypeHandler[],
  admission: WorkAdmission = workAdmission(undefined),
): void {
  const search = async (response: Response, parameters: ListParameters): Promise<void> => {
    // RFC 7644 §3.9 per type: a path a type does not define selects nothing of it (createProjection ignores it).
    const projections = new Map<TypeHandler, Projection>(
      types.map((type) => [
        type,
        createProjection(type.schema, {
          ...(parameters.attributes ? { attributes: parameters.attributes } : {}),
          ...(parameters.excludedAttributes ? { excludedAttributes: parameters.excludedAttributes } : {}),
        }),
      ]),
    );
    const wantsMembers = (type: TypeHandler): boolean => type.hasMembers && projections.get(type)?.includes("members") === true;
    const outcome = await searchAllTypes(config, types, {
      context: scimContext(response),
      parameters,
      members: wantsMembers,
      admit: (request) => admission({ kind: "list", request }, response),
    });
    const slice = eventLoopSlice();
    const resources: ScimObject[] = [];
    for (const { type, resource } of outcome.hits) {
      const projection = projections.get(type);
      if (!projection) continue;
      resources.push(wantsMembers(type) ? await projection.applyInSlices(resource, slice) : projection.apply(resource));
      await pauseIfDue(slice);
    }
    await sendScimInSlices(response, 200, listResponseBody({ ...outcome, resources }, resources));
  };

  router.get(
    "/",
    asyncHandler(async (request, response) => search(response, listParametersFromQuery(queryOf(request)))),
  );
  // RFC 7644 §3.4.3: "/.search" at the root searches every resource type, the query in the body.
  router.post(
    "/.search",
    asyncHandler(async (request, response) => search(response, listParametersFromBody(request.body))),
  );
}
