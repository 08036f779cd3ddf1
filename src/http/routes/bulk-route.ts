/** `POST /Bulk` (RFC 7644 §3.7), with its own body limit: the advertised `maxPayloadSize`. */
import type { Request, Router } from "express";
import { asyncHandler } from "../async-handler.js";
import type { ResourceService } from "../resource-service.js";
import { runBulk } from "../run-bulk.js";
import { scimBodyParser } from "../scim-body-parser.js";
import { scimContext } from "../scim-request-context.js";
import { sendScim } from "../send-scim.js";
import type { WriteAuditor } from "../write-auditor.js";

export function registerBulkRoute(
  router: Router,
  service: ResourceService,
  limits: { readonly maxOperations: number; readonly maxPayloadSize: number },
  onError: (error: unknown, request: Request | undefined) => void,
  auditor?: WriteAuditor,
): void {
  router.post(
    "/Bulk",
    ...scimBodyParser(limits.maxPayloadSize, "bulk.maxPayloadSize"),
    asyncHandler(async (request, response) => {
      const trail = auditor?.bulk(response);
      const body = await runBulk(service, scimContext(response), request.body, limits, (error) => onError(error, request), trail?.observe);
      // Every operation's entry is with the sink before the client hears of any of them.
      if (trail) await trail.settled();
      sendScim(response, 200, body);
    }),
  );
}
