/**
 * The attack simulations of the analytics store (spec §4.6): simulations, what each recipient did,
 * and their figures. Part of `AnalyticsStore`.
 */
import type { Learner } from "./learner-store.js";
import type { OrgScope } from "./org-scope.js";
import type { Page, PageRequest } from "./page-request.js";

/** A phishing attack simulation of one organization. */
export interface AttackSimulation {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** Its organization. */
  readonly orgId: string;
  /** Name, 1–200 characters. */
  readonly name: string;
  /** The lure or template used, free text. */
  readonly template?: string;
  /** ISO 8601 launch time. */
  readonly launchedAt: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/** What a simulation recipient did, in funnel order. */
export type SimulationEventType = "sent" | "delivered" | "opened" | "clicked" | "submitted_data" | "reported";

/** One recipient of a simulation: the first time of each thing it did. */
export interface SimulationRecipient {
  /** The simulation. */
  readonly simulationId: string;
  /** The learner's SCIM id. */
  readonly userId: string;
  /** ISO 8601 time of the first `sent`; absent until then. */
  readonly sentAt?: string;
  /** ISO 8601 time of the first `delivered`. */
  readonly deliveredAt?: string;
  /** ISO 8601 time of the first `opened`. */
  readonly openedAt?: string;
  /** ISO 8601 time of the first `clicked`. */
  readonly clickedAt?: string;
  /** ISO 8601 time of the first `submitted_data`. */
  readonly submittedDataAt?: string;
  /** ISO 8601 time of the first `reported`. */
  readonly reportedAt?: string;
}

/** A recipient as a simulation's user list shows it, with the learner. */
export interface SimulationRecipientView extends SimulationRecipient {
  /** The learner, when it still exists in SCIM. */
  readonly learner?: Learner;
}

/** Filters of a simulation's user list: recipients that did (true) or did not (false) each thing. */
export interface RecipientFilter {
  /** Opened the lure, or not. */
  readonly opened?: boolean;
  /** Clicked, or not. */
  readonly clicked?: boolean;
  /** Submitted data, or not. */
  readonly submittedData?: boolean;
  /** Reported it, or not. */
  readonly reported?: boolean;
}

/** A simulation's aggregate figures: counts of distinct recipients, and rates over `sent`. */
export interface SimulationSummary {
  /** The simulation. */
  readonly simulationId: string;
  /** Recipients it was sent to. */
  readonly sent: number;
  /** Recipients it was delivered to. */
  readonly delivered: number;
  /** Recipients that opened it. */
  readonly opened: number;
  /** Recipients that clicked. */
  readonly clicked: number;
  /** Recipients that submitted data. */
  readonly submittedData: number;
  /** Recipients that reported it. */
  readonly reported: number;
  /** Each count divided by `sent`, 0–1, rounded to 4 decimals; 0 when nothing was sent. */
  readonly rates: {
    readonly delivered: number;
    readonly opened: number;
    readonly clicked: number;
    readonly submittedData: number;
    readonly reported: number;
  };
}

/**
 * Simulations and their recipients in the analytics store. The methods keyed by a simulation id
 * alone check no scope: their callers have read the simulation within theirs.
 * Every method resolves once its change is visible to every later call from any process sharing
 * the storage. `undefined`/`false` mean "no such thing in scope" — the HTTP layer renders both the
 * same 404, so another organization's data and nonexistent data are indistinguishable.
 */
export interface SimulationStore {
  /** Stores a simulation; rejects when `id` exists. */
  createSimulation(simulation: AttackSimulation): Promise<void>;
  /** The simulation, when in scope. */
  getSimulation(scope: OrgScope, id: string): Promise<AttackSimulation | undefined>;
  /** Records that `userId` did `type` at `at`; keeps the earliest time per type. */
  recordSimulationEvent(
    orgId: string,
    event: { readonly simulationId: string; readonly userId: string; readonly type: SimulationEventType; readonly at: string },
  ): Promise<void>;
  /** The simulation's recipients by user id, with learners. */
  listRecipients(simulationId: string, filter: RecipientFilter, page: PageRequest): Promise<Page<SimulationRecipientView>>;
  /** One recipient, with its learner. */
  getRecipient(simulationId: string, userId: string): Promise<SimulationRecipientView | undefined>;
  /** Aggregates over the simulation's recipients. */
  simulationSummary(simulationId: string): Promise<SimulationSummary>;
}
