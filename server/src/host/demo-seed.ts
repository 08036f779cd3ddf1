/**
 * The `demo` data seed (issue 6: "a newcomer sees real numbers on first start"): fifty learners
 * provisioned into the demo organization, two training campaigns with enrolments in every state,
 * one phishing simulation with a believable funnel, and a few feedback comments — and, below the
 * demo organization, two divisions with learners of their own (issue 17): EMEA, provisioned from
 * a regional tenant that also holds ten of the company's people, and the Americas.
 *
 * Learners go in through the `ResourceStore` API with the attributes the SCIM router would store
 * for them (the same validator and profile), so they are ordinary SCIM users: an identity
 * provider sees them, and deleting one shows up in the analytics. Everything else is recorded
 * through `analyticsRecorder`, exactly as a host application would record it. The data is
 * deterministic, so the figures below are what the campaign summaries show.
 */
import { v7 } from "uuid";
import { analyticsRecorder } from "@scimkit/server";
import type { AnalyticsStore, AttackSimulation, Campaign } from "@scimkit/server";
import { unwrap } from "scimkit/core";
import { createResourceValidator } from "scimkit/core";
import { specProfile } from "scimkit/core";
import { createSchemaRegistry } from "scimkit/core";
import type { ResourceStore } from "scimkit/store";
import { uniqueKeysOf } from "scimkit/store";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

const GIVEN_NAMES = [
  "Ada",
  "Grace",
  "Alan",
  "Katherine",
  "Linus",
  "Margaret",
  "Tim",
  "Barbara",
  "Dennis",
  "Frances",
  "Ken",
  "Radia",
  "Edsger",
  "Hedy",
  "Donald",
  "Sophie",
  "Niklaus",
  "Joan",
  "Guido",
  "Anita",
  "Bjarne",
  "Shafi",
  "Leslie",
  "Mary",
  "Yukihiro",
] as const;
const FAMILY_NAMES = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Johnson",
  "Torvalds",
  "Hamilton",
  "Berners-Lee",
  "Liskov",
  "Ritchie",
  "Allen",
  "Thompson",
  "Perlman",
  "Dijkstra",
  "Lamarr",
  "Knuth",
  "Wilson",
  "Wirth",
  "Clarke",
  "van Rossum",
  "Borg",
  "Stroustrup",
  "Goldwasser",
  "Lamport",
  "Jackson",
  "Matsumoto",
] as const;
const DEPARTMENTS = ["Sales", "Engineering", "Finance", "Customer Support", "Marketing", "People"] as const;
/** Learners who have left: deactivated by the identity provider, their training history kept. */
const INACTIVE = new Set([7, 23, 41]);

/** What the seed wrote, for the start-up banner. */
export interface DemoSeedResult {
  /** How many learners it provisioned. */
  readonly learners: number;
  /** The two campaigns. */
  readonly campaigns: readonly Campaign[];
  /**
   * The simulation. The interface has no list of simulations (spec §4.6 names none), so the
   * banner prints its id for a newcomer to start from.
   */
  readonly simulation: AttackSimulation;
  /** How many feedback comments it recorded. */
  readonly feedbackComments: number;
  /** The divisions created under the organization, each with how many learners it got. */
  readonly divisions: readonly { readonly id: string; readonly name: string; readonly learners: number }[];
}

/** Options of `demoSeed`. */
export interface DemoSeedOptions {
  /** The SCIM store the learners are provisioned into. */
  readonly resources: ResourceStore;
  /** The analytics store; `orgId` must already be one of its organizations. */
  readonly analytics: AnalyticsStore;
  /** The organization to fill, `demo` in the host server. */
  readonly orgId: string;
  /** The time the data is arranged around (campaign due dates, event times). Default: now. */
  readonly now?: Date;
}

/** The rank of learner `index` in a fixed shuffle of `count` (`step` coprime with `count`). */
const rank = (index: number, step: number, count: number): number => (index * step) % count;

function learnerBody(index: number): Record<string, unknown> {
  const given = GIVEN_NAMES[index % GIVEN_NAMES.length] as string;
  // Every other block of 25 shifts the family names, so all fifty full names differ.
  const family = FAMILY_NAMES[(index + Math.floor(index / GIVEN_NAMES.length) * 3) % FAMILY_NAMES.length] as string;
  const email = `${`${given}.${family}`.toLowerCase().replace(/[^a-z.-]/g, "")}@demo.example`;
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    userName: email,
    name: { givenName: given, familyName: family },
    emails: [{ value: email, type: "work", primary: true }],
    active: !INACTIVE.has(index),
    [ENTERPRISE_SCHEMA]: { department: DEPARTMENTS[index % DEPARTMENTS.length] },
  };
}

/**
 * Fills organization `orgId` with the demo data. Run it once, on an organization without
 * learners of these names: a second run fails on the first duplicate `userName`.
 *
 * Figures it produces (as of `now`):
 * - "Security awareness essentials", due two days ago: 50 enrolled, 30 completed, 12 in progress,
 *   8 not started, 20 overdue.
 * - "Spotting phishing", due in 25 days: 40 enrolled, 10 completed, 15 in progress, 15 not started.
 * - "Parcel delivery notice" simulation: 50 sent, 48 delivered, 31 opened, 12 clicked,
 *   5 submitted data, 14 reported.
 * - Divisions `<orgId>-emea` (10 learners, all also in `orgId` by work e-mail) and
 *   `<orgId>-americas` (10 learners of their own), children of `orgId`, without SCIM tokens: the
 *   operator issues those (`scimkit tokens issue demo-emea`).
 */
export async function demoSeed(options: DemoSeedOptions): Promise<DemoSeedResult> {
  const { resources, analytics, orgId } = options;
  const now = (options.now ?? new Date()).getTime();
  let clock = now - 45 * DAY;
  const at = (time: number): string => new Date(time).toISOString();
  const recorder = analyticsRecorder({ store: analytics, now: () => new Date(clock) });

  const registry = createSchemaRegistry();
  const userSchema = registry.resourceType("User");
  if (!userSchema) throw new Error("demo seed: the schema registry has no User resource type");
  const validator = createResourceValidator(userSchema, specProfile);
  /** Provisions learner `index` into `into`, as the SCIM router would store it; its SCIM id. */
  const provision = async (into: string, index: number): Promise<string> => {
    const attributes = unwrap(validator.prepare(learnerBody(index)));
    const id = v7();
    await resources.create({
      orgId: into,
      resourceType: "User",
      id,
      now: at(now - 40 * DAY + index * HOUR),
      attributes,
      uniqueKeys: uniqueKeysOf(userSchema, attributes),
      unknownMembers: "ignore",
    });
    return id;
  };
  const learners: string[] = [];
  for (let index = 0; index < 50; index += 1) learners.push(await provision(orgId, index));

  let feedbackComments = 0;

  // A campaign whose due date has passed: the unfinished are overdue.
  clock = now - 31 * DAY;
  const essentials = await recorder.createCampaign(orgId, {
    name: "Security awareness essentials",
    description: "Passwords and passkeys, phishing, safe browsing and how to report an incident.",
    startsAt: at(now - 30 * DAY),
    dueAt: at(now - 2 * DAY),
  });
  clock = now - 30 * DAY;
  for (const userId of learners) await recorder.enrol(essentials.id, userId);
  for (const [index, userId] of learners.entries()) {
    const position = rank(index, 23, 50);
    if (position >= 42) continue;
    clock = now - 29 * DAY + position * 9 * HOUR;
    await recorder.recordProgress(essentials.id, userId, { progressPercent: 10 + (index % 7) * 10 });
    if (position >= 30) continue;
    clock += 2 * DAY + (index % 5) * HOUR;
    await recorder.recordProgress(essentials.id, userId, { progressPercent: 100, score: 62 + ((index * 37) % 39) });
  }
  clock = now - 20 * DAY;
  await recorder.addFeedback({ kind: "campaign", id: essentials.id }, learners[0] as string, {
    comment: "Short modules I could finish between meetings. The passkey part was new to me.",
    rating: 5,
  });
  await recorder.addFeedback({ kind: "campaign", id: essentials.id }, learners[5] as string, {
    comment: "Good content, but the quiz asked about things the videos never covered.",
    rating: 3,
  });
  await recorder.addFeedback({ kind: "campaign", id: essentials.id }, learners[12] as string, {
    comment: "Please add subtitles to the videos.",
    rating: 4,
  });
  feedbackComments += 3;

  // A campaign still running: nobody is overdue yet.
  clock = now - 6 * DAY;
  const phishing = await recorder.createCampaign(orgId, {
    name: "Spotting phishing",
    description: "Recognising lures, checking links and sender addresses, and reporting suspicious mail.",
    startsAt: at(now - 5 * DAY),
    dueAt: at(now + 25 * DAY),
  });
  clock = now - 5 * DAY;
  for (const userId of learners.slice(0, 40)) await recorder.enrol(phishing.id, userId);
  for (const [index, userId] of learners.slice(0, 40).entries()) {
    const position = rank(index, 13, 40);
    if (position >= 25) continue;
    clock = now - 4 * DAY + position * 2 * HOUR;
    await recorder.recordProgress(phishing.id, userId, { progressPercent: 25 + (index % 3) * 25 });
    if (position >= 10) continue;
    clock += 5 * HOUR;
    await recorder.recordProgress(phishing.id, userId, { progressPercent: 100, score: 70 + ((index * 11) % 31) });
  }
  clock = now - 2 * DAY;
  await recorder.addFeedback({ kind: "campaign", id: phishing.id }, learners[3] as string, {
    comment: "The sender-address exercise was the most useful part.",
    rating: 5,
  });
  feedbackComments += 1;

  // One simulation: each stage of the funnel is a prefix of the same fixed shuffle, so everyone
  // who clicked had opened and everyone who opened had the mail delivered.
  clock = now - 11 * DAY;
  const launchedAt = now - 10 * DAY;
  const simulation = await recorder.createSimulation(orgId, {
    name: "Parcel delivery notice",
    template: "courier-missed-delivery",
    launchedAt: at(launchedAt),
  });
  for (const [index, userId] of learners.entries()) {
    const position = rank(index, 17, 50);
    const step = (minutes: number): string => at(launchedAt + position * MINUTE + minutes * MINUTE);
    await recorder.recordSimulationEvent(simulation.id, userId, "sent", step(0));
    if (position >= 48) continue;
    await recorder.recordSimulationEvent(simulation.id, userId, "delivered", step(1));
    if (position < 31) await recorder.recordSimulationEvent(simulation.id, userId, "opened", step(30 + position * 7));
    if (position < 12) await recorder.recordSimulationEvent(simulation.id, userId, "clicked", step(32 + position * 7));
    if (position < 5) await recorder.recordSimulationEvent(simulation.id, userId, "submitted_data", step(35 + position * 7));
    if (position >= 8 && position < 22) await recorder.recordSimulationEvent(simulation.id, userId, "reported", step(40 + position * 7));
  }
  clock = now - 9 * DAY;
  const reporter = learners.find((_, index) => rank(index, 17, 50) === 15) as string;
  const clicker = learners.find((_, index) => rank(index, 17, 50) === 2) as string;
  await recorder.addFeedback({ kind: "simulation", id: simulation.id }, reporter, {
    comment: "The tracking link pointed to a look-alike domain, so I reported it.",
  });
  await recorder.addFeedback({ kind: "simulation", id: simulation.id }, clicker, {
    comment: "I was expecting a parcel that day. A fair lesson.",
    rating: 4,
  });
  feedbackComments += 2;

  // Two divisions, each its own organization with its own SCIM data: EMEA's tenant holds ten of
  // the company's people again (the same work e-mails), the Americas' ten others.
  const divisions = [
    { id: `${orgId}-emea`, name: "Demo EMEA", first: 0 },
    { id: `${orgId}-americas`, name: "Demo Americas", first: 50 },
  ] as const;
  for (const division of divisions) {
    await analytics.createOrganization({
      id: division.id,
      name: division.name,
      status: "active",
      parentId: orgId,
      createdAt: at(now - 40 * DAY),
      updatedAt: at(now - 40 * DAY),
    });
    for (let index = division.first; index < division.first + 10; index += 1) await provision(division.id, index);
  }

  return {
    learners: learners.length,
    campaigns: [essentials, phishing],
    simulation,
    feedbackComments,
    divisions: divisions.map(({ id, name }) => ({ id, name, learners: 10 })),
  };
}
