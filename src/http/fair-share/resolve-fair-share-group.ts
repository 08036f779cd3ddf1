/**
 * `resolveFairShareGroup`: after authentication, the request's fair-share group (architecture §4b:
 * a company's many organizations share one bound), asked of the host once per request and told to
 * the gate with every request, cheap ones included, so the gate knows who else is being served.
 */
import type { RequestHandler } from "express";
import type { ExpensiveWorkGate } from "./expensive-work-gate.js";
import { scimContext } from "../request-context/scim-request-context.js";
import type { FairShareOptions } from "../scim-router-options.js";

/**
 * The middleware, or `undefined` when there is nothing to do (a gate that observes nothing and
 * no group function). A group function that throws or rejects fails the request with 500 for
 * `onError`; one that answers an empty string leaves the organization its own group.
 */
export function resolveFairShareGroup(gate: ExpensiveWorkGate, group: FairShareOptions["group"]): RequestHandler | undefined {
  const observe = gate.observe?.bind(gate);
  if (group === undefined) {
    if (observe === undefined) return undefined;
    return (_request, response, next) => {
      observe(scimContext(response).orgId);
      next();
    };
  }
  const settle = (orgId: string, found: string, context: ReturnType<typeof scimContext>): void => {
    const chosen = found === "" ? orgId : found;
    context.fairShareGroup = chosen;
    observe?.(orgId, chosen);
  };
  return (_request, response, next) => {
    const context = scimContext(response);
    let found: string | Promise<string>;
    try {
      found = group(context.orgId);
    } catch (error) {
      next(error);
      return;
    }
    // A cached answer costs no extra turn of the event loop: this runs on every request.
    if (typeof found === "string") {
      settle(context.orgId, found, context);
      next();
      return;
    }
    found.then((resolved) => {
      settle(context.orgId, resolved, context);
      next();
    }, next);
  };
}
