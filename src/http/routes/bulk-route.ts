/** `POST /Bulk` (RFC 7644 §3.7), with its own body limit: the advertised `maxPayloadSize`. */
import type { Request, Router } from "express";
import { asyncHandler } from "../express-helpers/async-handler.js";
import type { ResourceService } from "../resource-service/resource-service.js";
import { runBulk } from "../bulk/run-bulk.js";
import { scimBodyParser } from "../body-parsing/scim-body-parser.js";
import { scimContext } from "../request-context/scim-request-context.js";
import { sendScim } from "../sending/send-scim.js";
import { withAdmission, workAdmission, type WorkAdmission } from "../fair-share/work-admission.js";
import type { BulkWork } from "../fair-share/work-classifier.js";
import type { WriteAuditor } from "../audit/write-auditor.js";

/** The length of the body's `Operations` (any casing) for the classifier; `runBulk` validates the rest. */
function operationCount(body: unknown): number {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return 0;
  const entry = Object.entries(body).find(([key]) => key.toLowerCase() === "operations");
  return Array.isArray(entry?.[1]) ? entry[1].length : 0;
}

export function registerBulkRoute(
  router: Router,
  service: ResourceService,
  limits: { readonly maxOperations: number; readonly maxPayloadSize: number },
  onError: (error: unknown, request: Request | undefined) => void,
  auditor?: WriteAuditor,
  admission: WorkAdmission = workAdmission(undefined),
): void {
  router.post(
    "/Bulk",
    ...scimBodyParser(limits.maxPayloadSize, "bulk.maxPayloadSize"),
    asyncHandler(async (request, response) => {
      const context = scimContext(response);
      const work: BulkWork = { kind: "bulk", orgId: context.orgId, operations: operationCount(request.body) };
      const body = await withAdmission(admission, work, response, async () => {
        const trail = auditor?.bulk(response);
        const outcome = await runBulk(service, context, request.body, limits, (error) => onError(error, request), trail?.observe);
        // Every operation's entry is with the sink before the client hears of any of them.
        if (trail) await trail.settled();
        return outcome;
      });
      sendScim(response, 200, body);
    }),
  );
}
