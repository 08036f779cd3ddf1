/**
 * Attack simulations and their recipients in SQL (`scimkit_simulations`,
 * `scimkit_simulation_recipients`): one row per recipient holding the first time of each event
 * type, so the funnel is one aggregate and an event is one insert or one conditional update.
 */
import type { Kysely, Selectable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AnalyticsDatabase, SimulationRecipientsTable, SimulationsTable } from "./analytics-tables.js";
import type {
  AnalyticsStore,
  AttackSimulation,
  RecipientFilter,
  SimulationEventType,
  SimulationRecipientView,
} from "../analytics-store.js";
import { simulationRates } from "../summary-rates.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { joinedLearnerColumns, learnerOfJoined, LEARNER_TYPE, type JoinedLearnerRow } from "./learner-queries.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type SimulationMembers =
  | "createSimulation"
  | "getSimulation"
  | "recordSimulationEvent"
  | "listRecipients"
  | "getRecipient"
  | "simulationSummary";

/** The column holding the first time of each event type. */
const EVENT_COLUMNS = {
  sent: "sent_at",
  delivered: "delivered_at",
  opened: "opened_at",
  clicked: "clicked_at",
  submitted_data: "submitted_data_at",
  reported: "reported_at",
} as const satisfies Readonly<Record<SimulationEventType, keyof SimulationRecipientsTable>>;

type EventColumn = (typeof EVENT_COLUMNS)[SimulationEventType];

/** The column each recipient filter tests for a time. */
const FILTER_COLUMNS = {
  opened: "rc.opened_at",
  clicked: "rc.clicked_at",
  submittedData: "rc.submitted_data_at",
  reported: "rc.reported_at",
} as const satisfies Readonly<Record<keyof RecipientFilter, `rc.${EventColumn}`>>;

function simulationOf(row: Selectable<SimulationsTable>): AttackSimulation {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    ...(row.template === null ? {} : { template: row.template }),
    launchedAt: row.launched_at,
    createdAt: row.created_at,
  };
}

function recipientViewOf(row: Selectable<SimulationRecipientsTable> & JoinedLearnerRow, dialect: SqlDialect): SimulationRecipientView {
  const learner = learnerOfJoined(row, row.org_id, dialect);
  const times = {
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    openedAt: row.opened_at,
    clickedAt: row.clicked_at,
    submittedDataAt: row.submitted_data_at,
    reportedAt: row.reported_at,
  };
  return {
    simulationId: row.simulation_id,
    userId: row.user_id,
    ...Object.fromEntries(Object.entries(times).filter(([, at]) => at !== null)),
    ...(learner === undefined ? {} : { learner }),
  };
}

/** The simulation members of `AnalyticsStore` over `db`. */
export function simulationQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, SimulationMembers> {
  // `rc` for the recipient: `r` is the learner's resource row in every join of this store.
  const recipientViews = (simulationId: string) =>
    db
      .selectFrom("scimkit_simulation_recipients as rc")
      .leftJoin("scimkit_resources as r", (join) =>
        join.onRef("r.org_id", "=", "rc.org_id").onRef("r.id", "=", "rc.user_id").on("r.resource_type", "=", LEARNER_TYPE),
      )
      .selectAll("rc")
      .select(joinedLearnerColumns)
      .where("rc.simulation_id", "=", simulationId);

  return {
    async createSimulation(simulation) {
      await db
        .insertInto("scimkit_simulations")
        .values({
          id: simulation.id,
          org_id: simulation.orgId,
          name: simulation.name,
          template: simulation.template ?? null,
          launched_at: simulation.launchedAt,
          created_at: simulation.createdAt,
        })
        .execute();
    },

    async getSimulation(scope, id) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return undefined;
      let query = db.selectFrom("scimkit_simulations").selectAll().where("id", "=", id);
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      const row = await query.executeTakeFirst();
      return row ? simulationOf(row) : undefined;
    },

    async recordSimulationEvent(orgId, event) {
      const column: EventColumn = EVENT_COLUMNS[event.type];
      const inserted = await dialect
        .ignoreConflicts(
          db
            .insertInto("scimkit_simulation_recipients")
            .values({ simulation_id: event.simulationId, user_id: event.userId, org_id: orgId, [column]: event.at }),
        )
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return;
      // A known recipient: the earliest time wins, in one statement, so concurrent events of one
      // recipient each keep whichever is earlier without reading first.
      await db
        .updateTable("scimkit_simulation_recipients")
        .set({ [column]: event.at })
        .where("simulation_id", "=", event.simulationId)
        .where("user_id", "=", event.userId)
        .where((eb) => eb.or([eb(column, "is", null), eb(column, ">", event.at)]))
        .execute();
    },

    async listRecipients(simulationId, filter, page) {
      let query = recipientViews(simulationId);
      for (const [name, did] of Object.entries(filter) as [keyof RecipientFilter, boolean | undefined][]) {
        if (did !== undefined) query = query.where(FILTER_COLUMNS[name], did ? "is not" : "is", null);
      }
      if (page.after !== undefined) query = query.where("rc.user_id", ">", page.after);
      const rows = await query.orderBy("rc.user_id").limit(rowsToRead(page)).execute();
      return pageOf(
        rows,
        page,
        (row) => recipientViewOf(row, dialect),
        (view) => view.userId,
      );
    },

    async getRecipient(simulationId, userId) {
      const row = await recipientViews(simulationId).where("rc.user_id", "=", userId).executeTakeFirst();
      return row ? recipientViewOf(row, dialect) : undefined;
    },

    async simulationSummary(simulationId) {
      // count(column) counts the recipients that did it: one aggregate over the simulation's range.
      const row = await db
        .selectFrom("scimkit_simulation_recipients")
        .where("simulation_id", "=", simulationId)
        .select((eb) => [
          eb.fn.count("sent_at").as("sent"),
          eb.fn.count("delivered_at").as("delivered"),
          eb.fn.count("opened_at").as("opened"),
          eb.fn.count("clicked_at").as("clicked"),
          eb.fn.count("submitted_data_at").as("submitted_data"),
          eb.fn.count("reported_at").as("reported"),
        ])
        .executeTakeFirst();
      const counts = {
        sent: Number(row?.sent ?? 0),
        delivered: Number(row?.delivered ?? 0),
        opened: Number(row?.opened ?? 0),
        clicked: Number(row?.clicked ?? 0),
        submittedData: Number(row?.submitted_data ?? 0),
        reported: Number(row?.reported ?? 0),
      };
      return { simulationId, ...counts, rates: simulationRates(counts) };
    },
  };
}
