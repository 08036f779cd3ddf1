/**
 * The discovery endpoints refuse a `filter` (RFC 7644 §4): "Query parameters described in
 * Section 3.4.2, such as filtering, sorting, and pagination, SHALL be ignored. If a "filter" is
 * provided, the service provider SHOULD respond with HTTP status code 403 (Forbidden) to ensure
 * that clients cannot incorrectly assume that any matching conditions specified in a filter are
 * true." The other list parameters stay ignored.
 */
import type { RequestHandler } from "express";
import { scimError } from "../../errors.js";
import { queryOf } from "../express-helpers/query-of.js";

/**
 * Route middleware of `GET /ServiceProviderConfig`, `/Schemas` and `/ResourceTypes` (and their
 * single documents): 403 when the query string carries a `filter` (any casing, as list parameters
 * are read). A blank one is no filter, as at a type's endpoint.
 */
export function refuseDiscoveryFilter(endpoint: string): RequestHandler {
  return (request, _response, next) => {
    for (const [name, value] of queryOf(request)) {
      if (name.toLowerCase() === "filter" && value.trim() !== "") {
        next(
          scimError(
            "forbidden",
            `Filtering is not supported on ${endpoint} (RFC 7644 §4): every document is returned whatever a filter says. Send the request without "filter".`,
          ),
        );
        return;
      }
    }
    next();
  };
}
