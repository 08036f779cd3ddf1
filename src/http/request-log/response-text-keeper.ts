/**
 * The text of a SCIM response, kept for the provisioning log (issue 18) by the router's own writers
 * (`sendScim`, `sendScimInSlices`) as they write it. Asking the writers to hand over the text they
 * already hold costs one property read per response; wrapping `response.write` and `end` on every
 * request, as a generic middleware must, measurably slowed every request of a busy host.
 */
import type { Response } from "express";

/** The first `limit` UTF-16 units of what the router wrote, and whether it wrote more. */
export interface ResponseTextKeeper {
  /** The most kept, in UTF-16 units: never fewer characters than the log's byte limit needs. */
  readonly limit: number;
  /** What was written so far, up to `limit`. */
  text: string;
  /** Whether more than `limit` was written. */
  more: boolean;
}

// A symbol in `res.locals`, the Express place for per-request state: no application name collides.
const KEEPER = Symbol("scimkit.responseTextKeeper");

type KeeperLocals = Record<typeof KEEPER, ResponseTextKeeper | undefined>;

/** Asks the router's writers to keep the text of `response` in `keeper`. */
export function keepResponseText(response: Response, keeper: ResponseTextKeeper): void {
  (response.locals as KeeperLocals)[KEEPER] = keeper;
}

/** Called by every writer of a SCIM body with each piece it writes, in order; a no-op unless asked. */
export function noteResponseText(response: Response, text: string): void {
  const keeper = (response.locals as KeeperLocals)[KEEPER];
  if (keeper === undefined || text === "") return;
  const room = keeper.limit - keeper.text.length;
  if (room <= 0) {
    keeper.more = true;
  } else if (text.length > room) {
    keeper.text += text.slice(0, room);
    keeper.more = true;
  } else {
    keeper.text += text;
  }
}
