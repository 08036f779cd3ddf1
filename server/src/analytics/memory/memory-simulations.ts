/**
 * The attack simulations of the memory analytics store: simulations, the earliest time of each
 * thing each recipient did (with their learners, read from SCIM) and the simulation's figures.
 */
import type { SimulationEventType, SimulationRecipient, SimulationRecipientView, SimulationStore } from "../analytics-store.js";
import { simulationRates } from "../summary-rates.js";
import { keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState, Owned } from "./memory-analytics-state.js";
import { memoryLearner } from "./memory-learner.js";
import { sees } from "./memory-scope.js";
import { plainCopy } from "./plain-copy.js";
import { sortedValues } from "./sorted-values.js";

/** The field of a recipient that keeps the time of each event type. */
const TIME_FIELD: Readonly<Record<SimulationEventType, keyof SimulationRecipient>> = {
  sent: "sentAt",
  delivered: "deliveredAt",
  opened: "openedAt",
  clicked: "clickedAt",
  submitted_data: "submittedDataAt",
  reported: "reportedAt",
};

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** `owned` as a simulation's user list shows it, with its learner. */
async function recipientView(state: MemoryAnalyticsState, owned: Owned<SimulationRecipient>): Promise<SimulationRecipientView> {
  const found = await memoryLearner(state, owned.orgId, owned.value.userId);
  const view: SimulationRecipientView = plainCopy(owned.value);
  return found === undefined ? view : { ...view, learner: found };
}

/** The `SimulationStore` of the memory analytics store over `state`. */
export function memorySimulations(state: MemoryAnalyticsState): SimulationStore {
  const { simulations, recipients } = state;
  return {
    async createSimulation(simulation) {
      if (simulations.has(simulation.id)) throw new Error(`memoryAnalyticsStore: simulation ${simulation.id} exists`);
      simulations.set(simulation.id, plainCopy(simulation));
    },

    async getSimulation(scope, id) {
      const simulation = simulations.get(id);
      return simulation !== undefined && sees(scope, simulation.orgId) ? plainCopy(simulation) : undefined;
    },

    async recordSimulationEvent(orgId, event) {
      let byUser = recipients.get(event.simulationId);
      if (byUser === undefined) {
        byUser = new Map();
        recipients.set(event.simulationId, byUser);
      }
      const current = byUser.get(event.userId)?.value ?? { simulationId: event.simulationId, userId: event.userId };
      const field = TIME_FIELD[event.type];
      const earlier = current[field];
      if (earlier !== undefined && Date.parse(earlier) <= Date.parse(event.at)) return;
      const next: Writable<SimulationRecipient> = { ...current };
      next[field] = event.at;
      byUser.set(event.userId, { orgId, value: next });
    },

    async listRecipients(simulationId, filter, page) {
      const did = (wanted: boolean | undefined, at: string | undefined): boolean => wanted === undefined || (at !== undefined) === wanted;
      const matching = sortedValues(recipients.get(simulationId) ?? new Map<string, Owned<SimulationRecipient>>()).filter(
        ({ value }) =>
          did(filter.opened, value.openedAt) &&
          did(filter.clicked, value.clickedAt) &&
          did(filter.submittedData, value.submittedDataAt) &&
          did(filter.reported, value.reportedAt),
      );
      const selected = keysetPage(
        matching,
        (owned) => owned.value.userId,
        page,
        (owned) => owned,
      );
      const items = await Promise.all(selected.items.map((owned) => recipientView(state, owned)));
      return selected.next === undefined ? { items } : { items, next: selected.next };
    },

    async getRecipient(simulationId, userId) {
      const owned = recipients.get(simulationId)?.get(userId);
      return owned === undefined ? undefined : recipientView(state, owned);
    },

    async simulationSummary(simulationId) {
      const counts = { sent: 0, delivered: 0, opened: 0, clicked: 0, submittedData: 0, reported: 0 };
      for (const { value } of recipients.get(simulationId)?.values() ?? []) {
        if (value.sentAt !== undefined) counts.sent += 1;
        if (value.deliveredAt !== undefined) counts.delivered += 1;
        if (value.openedAt !== undefined) counts.opened += 1;
        if (value.clickedAt !== undefined) counts.clicked += 1;
        if (value.submittedDataAt !== undefined) counts.submittedData += 1;
        if (value.reportedAt !== undefined) counts.reported += 1;
      }
      return { simulationId, ...counts, rates: simulationRates(counts) };
    },
  };
}
