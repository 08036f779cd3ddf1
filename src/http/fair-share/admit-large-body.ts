/**
 * `admitLargeBody`: the fair share (architecture §4b) for request bodies. A large write takes its
 * organization's turn on its headers, before the body parser reads and parses it, so a loop of
 * megabyte requests (even ones refused after parsing) queues behind its own organization instead
 * of taking the event loop from everyone.
 */
import type { Request, RequestHandler, Response } from "express";
import { scimError } from "../../errors.js";
import type { WorkPermit } from "./expensive-work-gate.js";
import { scimContext } from "../request-context/scim-request-context.js";
import { bodyWaitMs, turnSignal } from "./turn-signal.js";
import type { FairShare } from "./work-admission.js";
import type { BodyWork } from "./work-classifier.js";

/** The body the request announces, or `undefined` when the router will read none. */
function bodyWorkOf(request: Request, orgId: string): BodyWork | undefined {
  // The methods whose bodies `scimBodyParser` skips.
  if (request.method === "GET" || request.method === "HEAD" || request.method === "DELETE") return undefined;
  // RFC 9112 §6.3: a Transfer-Encoding overrides any Content-Length; its length is unknown.
  if (request.headers["transfer-encoding"] !== undefined) return { kind: "body", orgId, method: request.method, bytes: undefined };
  const declared = request.headers["content-length"];
  if (declared === undefined) return undefined;
  const bytes = Number(declared);
  return bytes > 0 ? { kind: "body", orgId, method: request.method, bytes } : undefined;
}

/** Releases `permit` exactly once, when `response` has finished or its connection closed. */
function holdUntilDone(response: Response, permit: WorkPermit): WorkPermit {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    permit.release();
  };
  // `close` also follows `finish`; on its own it means the connection dropped first.
  response.once("finish", release);
  response.once("close", release);
  return { release };
}

/**
 * Takes a permit of the request's organization when `classifier` calls its body expensive, and
 * keeps it in the request context until the response ends. Mount after authentication and rate
 * limiting (only admitted clients queue) and before any body parser.
 */
export function admitLargeBody({ gate, classifier, maxWaitMs }: FairShare): RequestHandler {
  return (request, response, next) => {
    let work: BodyWork | undefined;
    try {
      const context = scimContext(response);
      work = context.permit === undefined ? bodyWorkOf(request, context.orgId) : undefined;
      // A host's classifier may throw: that is a 500 for onError, like in `workAdmission`.
      if (work !== undefined && !classifier.isExpensive(work)) work = undefined;
    } catch (error) {
      next(error);
      return;
    }
    if (work === undefined) {
      next();
      return;
    }
    // The body waits unread: the wait ends before the server's request timeout would (408).
    const wait = turnSignal(response, bodyWaitMs(request, maxWaitMs));
    const { signal } = wait;
    gate.acquire(work.orgId, signal, scimContext(response).fairShareGroup ?? work.orgId).then(
      (granted) => {
        wait.done();
        const permit = holdUntilDone(response, granted);
        if (response.destroyed) {
          // Granted as the client left (the gate's contract lets that happen): nobody to serve.
          permit.release();
          next(
            signal.aborted
              ? signal.reason
              : scimError("unavailable", "The client disconnected before the request was read; it was not run."),
          );
          return;
        }
        scimContext(response).permit = permit;
        next();
      },
      (error: unknown) => {
        wait.done();
        next(error);
      },
    );
  };
}
