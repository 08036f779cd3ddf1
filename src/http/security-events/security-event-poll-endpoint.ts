/**
 * The RFC 8936 poll endpoint as an Express handler: a poll receiver POSTs its acknowledgements and
 * gets its next SETs. Authenticated by the `Authorization` value registered with the receiver,
 * whose digest the store keeps (`SecurityEventDelivery.authorizesPoll`).
 */
import type { Request, RequestHandler, Response } from "express";
import { isPossibleId } from "../../is-possible-id.js";
import { setNoSniff } from "../sending/no-sniff.js";
import type { PollRequest, SecurityEventDelivery } from "../../events/security-event-delivery.js";

/** Largest poll body read: acknowledgements of a few thousand SETs. */
const MAX_BODY_BYTES = 256 * 1024;

/** A refusal of a poll: its status and RFC 8936 error. */
interface PollRefusal {
  readonly status: number;
  readonly err: string;
  readonly description: string;
}

function refuse(response: Response, refusal: PollRefusal): void {
  setNoSniff(response);
  response.status(refusal.status).json({ err: refusal.err, description: refusal.description });
}

async function readBody(request: Request): Promise<string | PollRefusal> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      return { status: 413, err: "invalid_request", description: `The poll body is over ${MAX_BODY_BYTES} bytes.` };
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The poll request in `text`, or what is wrong with it (RFC 8936 §2.4). */
function parsePoll(text: string): PollRequest | PollRefusal {
  const bad = (description: string): PollRefusal => ({ status: 400, err: "invalid_request", description });
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return bad("The poll body is not JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return bad("The poll body must be a JSON object.");
  const { ack, setErrs, maxEvents, returnImmediately } = body as Record<string, unknown>;
  if (ack !== undefined && (!Array.isArray(ack) || !ack.every((jti) => typeof jti === "string"))) {
    return bad("ack must be an array of jti strings.");
  }
  if (maxEvents !== undefined && (typeof maxEvents !== "number" || !Number.isInteger(maxEvents) || maxEvents < 0)) {
    return bad("maxEvents must be a non-negative integer.");
  }
  if (returnImmediately !== undefined && typeof returnImmediately !== "boolean") return bad("returnImmediately must be true or false.");
  const errors: Record<string, { err: string; description?: string }> = {};
  if (setErrs !== undefined) {
    if (typeof setErrs !== "object" || setErrs === null || Array.isArray(setErrs)) return bad("setErrs must be an object keyed by jti.");
    for (const [jti, value] of Object.entries(setErrs)) {
      const { err, description } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      if (typeof err !== "string") return bad(`setErrs[${JSON.stringify(jti)}].err must be a string.`);
      errors[jti] = { err, ...(typeof description === "string" ? { description } : {}) };
    }
  }
  return {
    ...(ack === undefined ? {} : { ack: ack as string[] }),
    ...(setErrs === undefined ? {} : { setErrs: errors }),
    ...(maxEvents === undefined ? {} : { maxEvents }),
  };
}

/**
 * Answers `POST` polls of the receiver in route parameter `receiverId` of organization `orgId`
 * (RFC 8936 §2.4, §2.5). Always answers at once (`returnImmediately` is honoured by never waiting).
 * Mount it without a JSON body parser in front: it reads the body itself.
 *
 * @example app.post("/scim/Organizations/:orgId/events/poll/:receiverId", securityEventPollEndpoint(delivery));
 */
export function securityEventPollEndpoint(delivery: SecurityEventDelivery): RequestHandler<{ orgId: string; receiverId: string }> {
  return (request, response, next) => {
    const handle = async (): Promise<void> => {
      const { orgId, receiverId } = request.params;
      // Ids no store can hold (PostgreSQL refuses NUL) name no receiver: the store is not asked.
      const possible = isPossibleId(orgId) && isPossibleId(receiverId);
      // Unknown receiver and wrong credentials look the same from outside.
      if (!possible || !(await delivery.authorizesPoll(orgId, receiverId, request.get("authorization")))) {
        refuse(response, { status: 401, err: "authentication_failed", description: "Unknown poll receiver or wrong Authorization." });
        return;
      }
      const text = await readBody(request);
      if (typeof text !== "string") return refuse(response, text);
      const poll = parsePoll(text);
      if ("status" in poll) return refuse(response, poll);
      const answer = await delivery.poll(orgId, receiverId, poll);
      if (!answer) return refuse(response, { status: 401, err: "authentication_failed", description: "Unknown poll receiver." });
      setNoSniff(response);
      response.status(200).json(answer);
    };
    handle().catch(next);
  };
}
