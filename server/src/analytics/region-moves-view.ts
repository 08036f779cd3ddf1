/**
 * Moving an organization to another region, as the operator API drives it (issue 30, point 4).
 * The host provides it (`RegionsView.moves`) where a move is possible: two regions, SQL stores,
 * one process per host. None of it is personal data.
 */

/** Seconds a writer is asked to wait while its organization moves: a move's cut-over is meant to take about this. */
export const MOVE_RETRY_AFTER_SECONDS = 5;

/**
 * Where a move stands. On the source: `requested` (recorded, not yet frozen), `freezing` (writes
 * refused, those in flight finishing), `copying`, `verifying`, `switching` (the target takes the
 * organization), `cleaning` (the source deletes its copy), `done`; `rolling-back` then
 * `rolled-back` when cancelled before the switch. On the target: `arriving`, then `home`.
 */
export type RegionMoveStep =
  | "requested"
  | "freezing"
  | "copying"
  | "verifying"
  | "switching"
  | "cleaning"
  | "done"
  | "rolling-back"
  | "rolled-back"
  | "arriving"
  | "home";

/** One move of an organization, as this host's side of it has it. */
export interface RegionMove {
  /** The organization moved. */
  readonly orgId: string;
  /** The move's id, the same on both sides. */
  readonly moveId: string;
  /** `source`: it moves out of this host's region; `target`: into it. */
  readonly side: "source" | "target";
  /** The region it moves out of. */
  readonly from: string;
  /** The region it moves into. */
  readonly to: string;
  /** Where the move stands. */
  readonly step: RegionMoveStep;
  /** ISO 8601 times. */
  readonly startedAt: string;
  readonly updatedAt: string;
  /** Why the last attempt of the current step failed (it is retried); absent once it passed. */
  readonly lastError?: string;
}

/** A refusal: the status the operator API answers and the `detail` an operator can act on. */
export interface RegionMoveRefusal {
  readonly status: 400 | 404 | 409;
  readonly detail: string;
}

/** What the operator API asks of the host's moves. */
export interface RegionMoves {
  /**
   * Starts moving `orgId`, homed here, to region `to`: recorded at once, then run in the
   * background (`get` says how far it is). `requestedBy` is the API key's id, kept with the move.
   */
  start(orgId: string, to: string, requestedBy?: string): Promise<RegionMove | RegionMoveRefusal>;
  /** Cancels the move of `orgId` before its switch: the target's copy is dropped, writes resume here. */
  cancel(orgId: string): Promise<RegionMove | RegionMoveRefusal>;
  /** Every move this host took part in, the most recent first. */
  list(): Promise<readonly RegionMove[]>;
  /** The move of `orgId` this host knows of, or undefined. */
  get(orgId: string): Promise<RegionMove | undefined>;
}

/** Whether `value` is a refusal rather than a move. */
export function isRegionMoveRefusal(value: RegionMove | RegionMoveRefusal): value is RegionMoveRefusal {
  return "detail" in value;
}
