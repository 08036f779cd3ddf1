/**
 * The routes of one resource type (spec §4.1, §4.2; RFC 7644 §3.3–§3.6): list and `.search`,
 * create, read, replace, patch and delete, each a thin shell over the resource service.
 */
import express, { type Request, type Response, type Router } from "express";
import { eventLoopSlice, mapInSlices, pauseIfDue } from "../../event-loop-slice.js";
import { createProjection, type Projection } from "../../scim/schema/create-projection.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { asyncHandler } from "../express-helpers/async-handler.js";
import { matchesEntityTag } from "../resource-service/entity-tags.js";
import { queryOf } from "../express-helpers/query-of.js";
import { listParametersFromBody, listParametersFromQuery, projectionParameters, type ListParameters } from "../search/list-parameters.js";
import { listResponseBody } from "../search/list-response.js";
import { type ResourceService, compatibilityOf } from "../resource-service/resource-service.js";
import { resourceLocation } from "../resource-service/render-resource.js";
import { scimContext } from "../request-context/scim-request-context.js";
import type { TypeHandler } from "../resource-service/type-handler.js";
import { sendResource, sendScimInSlices } from "../sending/send-scim.js";
import { workAdmission, type WorkAdmission } from "../fair-share/work-admission.js";
import type { WriteAuditor } from "../audit/write-auditor.js";

function header(request: Request, name: string): string | undefined {
  const value = request.get(name);
  return value === undefined || value.trim() === "" ? undefined : value;
}

function idParameter(request: Request): string {
  return String(request.params["id"]);
}

export function registerResourceRoutes(
  router: Router,
  service: ResourceService,
  type: TypeHandler,
  auditor?: WriteAuditor,
  admission: WorkAdmission = workAdmission(undefined),
): void {
  const endpoint = type.schema.resourceType.endpoint;
  // One sub-router per resource type, mounted at its endpoint: a request is matched against the
  // three paths of its own type, not against every route of the service.
  const routes = express.Router({ mergeParams: true });
  const collection = routes.route("/");
  const single = routes.route("/:id");
  // Most requests name no attributes: their projection is compiled once, not per request.
  const defaultProjection = createProjection(type.schema);
  const projectionFor = (parameters: Pick<ListParameters, "attributes" | "excludedAttributes">): Projection =>
    parameters.attributes === undefined && parameters.excludedAttributes === undefined
      ? defaultProjection
      : createProjection(type.schema, {
          ...(parameters.attributes ? { attributes: parameters.attributes } : {}),
          ...(parameters.excludedAttributes ? { excludedAttributes: parameters.excludedAttributes } : {}),
        });
  const wantsMembers = (projection: Projection): boolean => type.hasMembers && projection.includes("members");
  // Only a resource that may carry a group's every member needs the projection in slices; a User
  // keeps the synchronous one, the read path's cost unchanged.
  const project = (projection: Projection, resource: ScimObject): ScimObject | Promise<ScimObject> =>
    wantsMembers(projection) ? projection.applyInSlices(resource) : projection.apply(resource);
  const projectPage = async (projection: Projection, resources: readonly ScimObject[], members: boolean): Promise<ScimObject[]> => {
    if (!members) return mapInSlices(resources, (resource) => projection.apply(resource));
    const slice = eventLoopSlice();
    const page: ScimObject[] = [];
    for (const resource of resources) {
      page.push(await projection.applyInSlices(resource, slice));
      await pauseIfDue(slice);
    }
    return page;
  };

  const list = async (response: Response, parameters: ListParameters): Promise<void> => {
    const projection = projectionFor(parameters);
    const outcome = await service.list({
      context: scimContext(response),
      resourceType: type.id,
      parameters,
      members: wantsMembers(projection),
      admit: (request) => admission({ kind: "list", request }, response),
    });
    await sendScimInSlices(
      response,
      200,
      listResponseBody(outcome, await projectPage(projection, outcome.resources, wantsMembers(projection))),
    );
  };

  collection.get(asyncHandler(async (request, response) => list(response, listParametersFromQuery(queryOf(request)))));

  // RFC 7644 §3.4.3: the same query, with the parameters in the body so they stay out of logs.
  routes.post(
    "/.search",
    asyncHandler(async (request, response) => list(response, listParametersFromBody(request.body))),
  );

  collection.post(
    asyncHandler(async (request, response) => {
      const projection = projectionFor(projectionParameters(queryOf(request)));
      const context = scimContext(response);
      const outcome = await service.create({
        context,
        resourceType: type.id,
        body: request.body,
        ifMatch: header(request, "if-match"),
        members: wantsMembers(projection),
      });
      // A POST that linked an existing user (`existingUsers`) created nothing: 200, with where it lives.
      const status = outcome.linked ? 200 : 201;
      if (auditor) await auditor.succeeded(response, "create", type.id, outcome.stored.id, status);
      const location = resourceLocation(context.baseUrl, endpoint, outcome.stored.id);
      await sendResource(response, status, await project(projection, outcome.resource), outcome.stored.version, location);
    }),
  );

  single.get(
    asyncHandler(async (request, response) => {
      const projection = projectionFor(projectionParameters(queryOf(request)));
      const outcome = await service.get({
        context: scimContext(response),
        resourceType: type.id,
        id: idParameter(request),
        members: wantsMembers(projection),
      });
      const ifNoneMatch = header(request, "if-none-match");
      // RFC 7644 §3.14: the client's copy is current, so no body.
      if (ifNoneMatch !== undefined && matchesEntityTag(ifNoneMatch, outcome.stored.version)) {
        response.set("ETag", `W/"${outcome.stored.version}"`).status(304).end();
        return;
      }
      await sendResource(response, 200, await project(projection, outcome.resource), outcome.stored.version);
    }),
  );

  single.put(
    asyncHandler(async (request, response) => {
      const projection = projectionFor(projectionParameters(queryOf(request)));
      const outcome = await service.replace({
        context: scimContext(response),
        resourceType: type.id,
        id: idParameter(request),
        body: request.body,
        ifMatch: header(request, "if-match"),
        members: wantsMembers(projection),
      });
      if (auditor) await auditor.succeeded(response, "replace", type.id, outcome.stored.id, 200);
      await sendResource(response, 200, await project(projection, outcome.resource), outcome.stored.version);
    }),
  );

  single.patch(
    asyncHandler(async (request, response) => {
      const parameters = projectionParameters(queryOf(request));
      const projection = projectionFor(parameters);
      const context = scimContext(response);
      // RFC 7644 §3.5.2 allows 204: for a group it spares loading every member just to echo them,
      // unless the client asks for attributes or the compatibility profile asks for the resource.
      const asked =
        parameters.attributes !== undefined ||
        parameters.excludedAttributes !== undefined ||
        compatibilityOf(context).responses.groupPatch === "resource";
      const members = type.hasMembers && asked && wantsMembers(projection);
      const outcome = await service.patch({
        context,
        resourceType: type.id,
        id: idParameter(request),
        body: request.body,
        ifMatch: header(request, "if-match"),
        members,
      });
      if (auditor) await auditor.succeeded(response, "patch", type.id, outcome.stored.id, 200);
      if (type.hasMembers && !asked) {
        response.set("ETag", `W/"${outcome.stored.version}"`).status(204).end();
        return;
      }
      await sendResource(response, 200, await project(projection, outcome.resource), outcome.stored.version);
    }),
  );

  single.delete(
    asyncHandler(async (request, response) => {
      const id = idParameter(request);
      await service.delete({ context: scimContext(response), resourceType: type.id, id, ifMatch: header(request, "if-match") });
      if (auditor) await auditor.succeeded(response, "delete", type.id, id, 204);
      response.status(204).end();
    }),
  );

  router.use(endpoint, routes);
}
