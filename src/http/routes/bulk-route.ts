/** `POST /Bulk` (RFC 7644 §3.7), with its own body limit: the advertised `maxPayloadSize`. */
import type { Request, Router } from "express";
import { asyncHandler } from "../async-handler.js";
import type { ResourceService } from "../resource-service.js";
import { runBulk } from "../run-bulk.js";
import { scimBodyParser } from "../scim-body-parser.js";
import { scimContext } from "../scim-request-context.js";
import { sendScim } from "../send-scim.js";

export function registerBulkRoute(
  router: Router,
  service: ResourceService,
  limits: { readonly maxOperations: number; readonly maxPayloadSize: number },
  onError: (error: unknown, request: Request | undefined) => void,
): void {
  router.post(
    "/Bulk",
    ...scimBodyParser(limits.maxPayloadSize),
    asyncHandler(async (request, response) => {
      const body = await runBulk(service, scimContext(response), request.body, limits, (error) => onError(error, request));
      sendScim(response, 200, body);
    }),
  );
}
