/**
 * `/ServiceProviderConfig`, `/Schemas` and `/ResourceTypes` (RFC 7644 §4). The first is
 * registered before authentication (spec §5); the others after it.
 */
import type { Router } from "express";
import { scimError } from "../../errors.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResourceProfile } from "../../scim/schema/resource-profile.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import { resourceTypeDocuments, schemaDocuments, serviceProviderConfig, type ServiceFeatures } from "../discovery/discovery-documents.js";
import { LIST_RESPONSE_SCHEMA } from "../search/list-response.js";
import { refuseDiscoveryFilter } from "../discovery/refuse-discovery-filter.js";
import { compatibilityOf } from "../resource-service/resource-service.js";
import { sendScim } from "../sending/send-scim.js";
import { scimContext } from "../request-context/scim-request-context.js";

function listResponse(resources: readonly ScimObject[]): ScimObject {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: resources.length,
    itemsPerPage: resources.length,
    startIndex: 1,
    Resources: resources,
  };
}

function byId(documents: readonly ScimObject[], id: string, what: string): ScimObject {
  const found = documents.find((document) => typeof document["id"] === "string" && document["id"].toLowerCase() === id.toLowerCase());
  if (!found) throw scimError("notFound", `${what} ${JSON.stringify(id)} not found.`);
  return found;
}

/** `GET /ServiceProviderConfig`, which needs no authentication. */
export function registerServiceProviderConfigRoute(router: Router, features: ServiceFeatures): void {
  router.get("/ServiceProviderConfig", refuseDiscoveryFilter("/ServiceProviderConfig"), (_request, response) => {
    const context = scimContext(response);
    sendScim(response, 200, serviceProviderConfig(features, context.baseUrl, compatibilityOf(context).responses.advertisePagination));
  });
}

/** `GET /Schemas[/{id}]` and `GET /ResourceTypes[/{id}]`. */
export function registerSchemaRoutes(router: Router, registry: SchemaRegistry, profile: ResourceProfile): void {
  // On the routes themselves, not as `router.use` layers every resource request would walk past.
  const schemas = refuseDiscoveryFilter("/Schemas");
  const resourceTypes = refuseDiscoveryFilter("/ResourceTypes");
  router.get("/Schemas", schemas, (_request, response) => {
    sendScim(response, 200, listResponse(schemaDocuments(registry, profile, scimContext(response).baseUrl)));
  });
  router.get("/Schemas/:schemaId", schemas, (request, response) => {
    const documents = schemaDocuments(registry, profile, scimContext(response).baseUrl);
    sendScim(response, 200, byId(documents, String(request.params["schemaId"]), "Schema"));
  });
  router.get("/ResourceTypes", resourceTypes, (_request, response) => {
    sendScim(response, 200, listResponse(resourceTypeDocuments(registry, scimContext(response).baseUrl)));
  });
  router.get("/ResourceTypes/:typeId", resourceTypes, (request, response) => {
    const documents = resourceTypeDocuments(registry, scimContext(response).baseUrl);
    sendScim(response, 200, byId(documents, String(request.params["typeId"]), "ResourceType"));
  });
}
