/**
 * `GET /openapi.json`: the interface's OpenAPI 3.1 document, naming the URL the router was
 * reached at as its server so "try it" tools call the right place.
 */
import type { AnalyticsHandlers } from "../analytics-call.js";
import { openApiDocument } from "../definitions/openapi-document.js";
import { sendJson } from "../send-json.js";

/** The handler of the OpenAPI document. */
export function documentHandlers(): Pick<AnalyticsHandlers, "getOpenApiDocument"> {
  return {
    async getOpenApiDocument({ response, baseUrl }) {
      sendJson(response, 200, openApiDocument(baseUrl));
    },
  };
}
