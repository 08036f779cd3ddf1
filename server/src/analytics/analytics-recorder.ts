/**
 * Where the training data comes from (issue 6): the programmatic API a host calls when its
 * learners are enrolled, make progress, receive a phishing simulation or leave feedback. The
 * analytics interface only reads; everything it reports was recorded through here.
 *
 * The recorder is the "core" in front of an `AnalyticsStore`: it validates, chooses ids (UUID v7)
 * and times (ISO 8601 UTC), derives the enrolment status, and hands the store clean input.
 */
import { v7 } from "uuid";
import { invalidRequest, notFound, type ProblemFieldError } from "./analytics-problem.js";
import type {
  AnalyticsStore,
  AttackSimulation,
  Campaign,
  Enrolment,
  EnrolmentStatus,
  FeedbackComment,
  OrgScope,
  SimulationEventType,
} from "./analytics-store.js";

/** A time as the recorder accepts it: a `Date`, or an ISO 8601 date-time with a zone (RFC 3339 §5.6). */
export type TimeInput = Date | string;

/** Options of `analyticsRecorder`. */
export interface AnalyticsRecorderOptions {
  /** Where the data goes: the same store the analytics router reads. */
  readonly store: AnalyticsStore;
  /** The clock for `createdAt`, `enrolledAt`, progress times and events without `at`. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** A new training campaign. */
export interface CampaignInput {
  /** 1–200 characters. */
  readonly name: string;
  /** Up to 2,000 characters. */
  readonly description?: string;
  /** When it starts. */
  readonly startsAt: TimeInput;
  /** When it is due; an unfinished enrolment after it is overdue. Absent: never overdue. Not before `startsAt`. */
  readonly dueAt?: TimeInput;
}

/** A learner's progress in a campaign. */
export interface ProgressInput {
  /** An integer 0–100: 0 is not started, 1–99 in progress, 100 completed. */
  readonly progressPercent: number;
  /** 0–100 (decimals allowed); absent keeps the score recorded before, if any. */
  readonly score?: number;
}

/** A new attack simulation. */
export interface SimulationInput {
  /** 1–200 characters. */
  readonly name: string;
  /** The lure or template used, up to 200 characters. */
  readonly template?: string;
  /** When it was launched. */
  readonly launchedAt: TimeInput;
}

/** A learner's feedback. */
export interface FeedbackInput {
  /** 1–4,000 characters. */
  readonly comment: string;
  /** An integer 1–5. */
  readonly rating?: number;
}

/**
 * Records training data for the analytics interface. Every method validates its input and throws
 * an `AnalyticsProblem` — `invalid-request` (400) naming each bad field, or `not-found` (404) for
 * an unknown organization, campaign or simulation — before anything is written.
 */
export interface AnalyticsRecorder {
  /**
   * Creates a campaign of organization `orgId`, which the analytics store must know (the
   * organizations the operator created, or the host registered).
   */
  createCampaign(orgId: string, input: CampaignInput): Promise<Campaign>;
  /**
   * Enrols learner `userId` (its SCIM id) in the campaign, not started. Enrolling a learner who is
   * already enrolled changes nothing and returns the existing enrolment, so a host may call it on
   * every assignment without resetting progress.
   */
  enrol(campaignId: string, userId: string): Promise<Enrolment>;
  /**
   * Records the learner's current progress; the learner must be enrolled. The status follows
   * `progressPercent`; `startedAt` is set the first time progress leaves 0 and `completedAt` the
   * first time it reaches 100, and later records do not move them. A progress reset (lower than a
   * state already reached) clears the time of the state left, so the times always describe the
   * current status.
   */
  recordProgress(campaignId: string, userId: string, progress: ProgressInput): Promise<Enrolment>;
  /** Creates an attack simulation of organization `orgId` (which the analytics store must know). */
  createSimulation(orgId: string, input: SimulationInput): Promise<AttackSimulation>;
  /**
   * Records that learner `userId` did `type` (`sent`, `delivered`, `opened`, `clicked`,
   * `submitted_data`, `reported`) at `at` (default now). Repeats are harmless: the earliest time
   * of each kind is kept.
   */
  recordSimulationEvent(simulationId: string, userId: string, type: SimulationEventType, at?: TimeInput): Promise<void>;
  /** Stores learner `userId`'s feedback on a campaign or a simulation. */
  addFeedback(subject: FeedbackComment["subject"], userId: string, input: FeedbackInput): Promise<FeedbackComment>;
}

const EVERYTHING: OrgScope = { all: true };
const SIMULATION_EVENT_TYPES: readonly SimulationEventType[] = ["sent", "delivered", "opened", "clicked", "submitted_data", "reported"];
// RFC 3339 §5.6 date-time: a zone is required, since a time without one means different
// instants on different hosts.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
// As the interface bounds organization and SCIM ids, so whatever is recorded can be asked for.
const MAX_ID_LENGTH = 256;

/** Collects every invalid field of one call, so the caller learns all of them at once. */
interface Checker {
  readonly errors: ProblemFieldError[];
  text(
    field: string,
    value: unknown,
    limits: { readonly min: number; readonly max: number; readonly optional?: boolean },
  ): string | undefined;
  time(field: string, value: unknown, optional?: boolean): string | undefined;
  number(
    field: string,
    value: unknown,
    limits: { readonly min: number; readonly max: number; readonly integer: boolean; readonly optional?: boolean },
  ): number | undefined;
  /** Throws `invalid-request` when anything was invalid. */
  done(): void;
}

function checker(): Checker {
  const errors: ProblemFieldError[] = [];
  const fail = (field: string, message: string): undefined => {
    errors.push({ field, message });
    return undefined;
  };
  return {
    errors,
    text(field, value, { min, max, optional }) {
      if (value === undefined && optional) return undefined;
      if (typeof value !== "string") return fail(field, "must be a string");
      // Length in code points, so an emoji counts once as a person would count it.
      const length = [...value.trim()].length;
      if (length < min) return fail(field, min === 1 ? "must not be empty" : `must have at least ${min} characters`);
      if ([...value].length > max) return fail(field, `must have at most ${max} characters`);
      return value;
    },
    time(field, value, optional = false) {
      if (value === undefined && optional) return undefined;
      if (value instanceof Date) {
        return Number.isNaN(value.getTime()) ? fail(field, "must be a valid date") : value.toISOString();
      }
      if (typeof value !== "string" || !isDateTime(value)) {
        return fail(field, "must be an ISO 8601 date-time with a time zone, e.g. 2025-03-01T09:00:00Z");
      }
      return new Date(value).toISOString();
    },
    number(field, value, { min, max, integer, optional }) {
      if (value === undefined && optional) return undefined;
      if (typeof value !== "number" || !Number.isFinite(value)) return fail(field, "must be a number");
      if (integer && !Number.isInteger(value)) return fail(field, "must be an integer");
      if (value < min || value > max) return fail(field, `must be between ${min} and ${max}`);
      return value;
    },
    done() {
      if (errors.length > 0) throw invalidRequest(errors);
    },
  };
}

function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  // Date.parse rolls 2025-02-30 over to March 2; RFC 3339 §5.7 bounds the day by the month.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function statusOf(progressPercent: number): EnrolmentStatus {
  if (progressPercent === 0) return "not_started";
  return progressPercent === 100 ? "completed" : "in_progress";
}

/**
 * Creates the recorder over `options.store`.
 *
 * @example
 * const recorder = analyticsRecorder({ store: analyticsStore });
 * const campaign = await recorder.createCampaign("acme", { name: "Security basics 2025", startsAt: "2025-03-01T00:00:00Z", dueAt: "2025-03-31T23:59:59Z" });
 * await recorder.enrol(campaign.id, scimUserId);
 * await recorder.recordProgress(campaign.id, scimUserId, { progressPercent: 100, score: 92 });
 */
export function analyticsRecorder(options: AnalyticsRecorderOptions): AnalyticsRecorder {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const timestamp = (): string => now().toISOString();

  const requireOrganization = async (orgId: string): Promise<void> => {
    if (!(await store.getOrganization(EVERYTHING, orgId))) throw notFound(`There is no organization ${JSON.stringify(orgId)}.`);
  };
  const requireCampaign = async (campaignId: string): Promise<Campaign> => {
    const campaign = await store.getCampaign(EVERYTHING, campaignId);
    if (!campaign) throw notFound(`There is no campaign ${JSON.stringify(campaignId)}.`);
    return campaign;
  };
  const requireSimulation = async (simulationId: string): Promise<AttackSimulation> => {
    const simulation = await store.getSimulation(EVERYTHING, simulationId);
    if (!simulation) throw notFound(`There is no attack simulation ${JSON.stringify(simulationId)}.`);
    return simulation;
  };
  const stripped = (enrolment: Enrolment): Enrolment => {
    // The store answers with a view (learner, overdue); the recorder returns the record only.
    const { campaignId, userId, status, progressPercent, score, enrolledAt, startedAt, completedAt, updatedAt } = enrolment;
    return {
      campaignId,
      userId,
      status,
      progressPercent,
      ...(score === undefined ? {} : { score }),
      enrolledAt,
      ...(startedAt === undefined ? {} : { startedAt }),
      ...(completedAt === undefined ? {} : { completedAt }),
      updatedAt,
    };
  };

  return {
    async createCampaign(orgId, input) {
      const check = checker();
      const org = check.text("orgId", orgId, { min: 1, max: MAX_ID_LENGTH });
      const name = check.text("name", input?.name, { min: 1, max: 200 });
      const description = check.text("description", input?.description, { min: 0, max: 2000, optional: true });
      const startsAt = check.time("startsAt", input?.startsAt);
      const dueAt = check.time("dueAt", input?.dueAt, true);
      if (startsAt !== undefined && dueAt !== undefined && dueAt < startsAt) {
        check.errors.push({ field: "dueAt", message: "must not be before startsAt" });
      }
      check.done();
      await requireOrganization(org as string);
      const campaign: Campaign = {
        id: v7(),
        orgId: org as string,
        name: (name as string).trim(),
        ...(description === undefined ? {} : { description }),
        startsAt: startsAt as string,
        ...(dueAt === undefined ? {} : { dueAt }),
        createdAt: timestamp(),
      };
      await store.createCampaign(campaign);
      return campaign;
    },

    async enrol(campaignId, userId) {
      const check = checker();
      check.text("campaignId", campaignId, { min: 1, max: MAX_ID_LENGTH });
      check.text("userId", userId, { min: 1, max: MAX_ID_LENGTH });
      check.done();
      const campaign = await requireCampaign(campaignId);
      const at = timestamp();
      const existing = await store.getEnrolment(campaign.id, userId, at);
      if (existing) return stripped(existing);
      const enrolment: Enrolment = {
        campaignId: campaign.id,
        userId,
        status: "not_started",
        progressPercent: 0,
        enrolledAt: at,
        updatedAt: at,
      };
      await store.putEnrolment(campaign.orgId, enrolment);
      return enrolment;
    },

    async recordProgress(campaignId, userId, progress) {
      const check = checker();
      check.text("campaignId", campaignId, { min: 1, max: MAX_ID_LENGTH });
      check.text("userId", userId, { min: 1, max: MAX_ID_LENGTH });
      const percent = check.number("progressPercent", progress?.progressPercent, { min: 0, max: 100, integer: true });
      const score = check.number("score", progress?.score, { min: 0, max: 100, integer: false, optional: true });
      check.done();
      const campaign = await requireCampaign(campaignId);
      const at = timestamp();
      const current = await store.getEnrolment(campaign.id, userId, at);
      if (!current)
        throw notFound(`User ${JSON.stringify(userId)} is not enrolled in campaign ${JSON.stringify(campaignId)}; enrol it first.`);
      const status = statusOf(percent as number);
      const startedAt = status === "not_started" ? undefined : (current.startedAt ?? at);
      const completedAt = status === "completed" ? (current.completedAt ?? at) : undefined;
      const kept = score ?? current.score;
      const enrolment: Enrolment = {
        campaignId: campaign.id,
        userId,
        status,
        progressPercent: percent as number,
        ...(kept === undefined ? {} : { score: kept }),
        enrolledAt: current.enrolledAt,
        ...(startedAt === undefined ? {} : { startedAt }),
        ...(completedAt === undefined ? {} : { completedAt }),
        updatedAt: at,
      };
      await store.putEnrolment(campaign.orgId, enrolment);
      return enrolment;
    },

    async createSimulation(orgId, input) {
      const check = checker();
      const org = check.text("orgId", orgId, { min: 1, max: MAX_ID_LENGTH });
      const name = check.text("name", input?.name, { min: 1, max: 200 });
      const template = check.text("template", input?.template, { min: 0, max: 200, optional: true });
      const launchedAt = check.time("launchedAt", input?.launchedAt);
      check.done();
      await requireOrganization(org as string);
      const simulation: AttackSimulation = {
        id: v7(),
        orgId: org as string,
        name: (name as string).trim(),
        ...(template === undefined ? {} : { template }),
        launchedAt: launchedAt as string,
        createdAt: timestamp(),
      };
      await store.createSimulation(simulation);
      return simulation;
    },

    async recordSimulationEvent(simulationId, userId, type, at) {
      const check = checker();
      check.text("simulationId", simulationId, { min: 1, max: MAX_ID_LENGTH });
      check.text("userId", userId, { min: 1, max: MAX_ID_LENGTH });
      if (!SIMULATION_EVENT_TYPES.includes(type)) {
        check.errors.push({ field: "type", message: `must be one of ${SIMULATION_EVENT_TYPES.join(", ")}` });
      }
      const when = at === undefined ? undefined : check.time("at", at);
      check.done();
      const simulation = await requireSimulation(simulationId);
      await store.recordSimulationEvent(simulation.orgId, { simulationId: simulation.id, userId, type, at: when ?? timestamp() });
    },

    async addFeedback(subject, userId, input) {
      const check = checker();
      const kind = subject?.kind;
      if (kind !== "campaign" && kind !== "simulation")
        check.errors.push({ field: "subject.kind", message: "must be campaign or simulation" });
      check.text("subject.id", subject?.id, { min: 1, max: MAX_ID_LENGTH });
      check.text("userId", userId, { min: 1, max: MAX_ID_LENGTH });
      const comment = check.text("comment", input?.comment, { min: 1, max: 4000 });
      const rating = check.number("rating", input?.rating, { min: 1, max: 5, integer: true, optional: true });
      check.done();
      const orgId = kind === "campaign" ? (await requireCampaign(subject.id)).orgId : (await requireSimulation(subject.id)).orgId;
      const feedback: FeedbackComment = {
        id: v7(),
        subject: { kind: subject.kind, id: subject.id },
        userId,
        ...(rating === undefined ? {} : { rating }),
        comment: comment as string,
        createdAt: timestamp(),
      };
      await store.addFeedback(orgId, feedback);
      return feedback;
    },
  };
}
