/**
 * Attack simulations (spec §4.6): summary, the recipients and what each did, one recipient,
 * feedback comments, and the bulk report.
 */
import { notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { AttackSimulation, RecipientFilter } from "../analytics-store.js";
import { renderFeedback, renderSimulationUser } from "../render-resources.js";
import { simulationUsersReport } from "../report-kinds.js";
import { sendJson } from "../send-json.js";
import { startReport } from "./start-report.js";

type SimulationHandlers = Pick<
  AnalyticsHandlers,
  "getSimulationSummary" | "listSimulationUsers" | "getSimulationUser" | "listSimulationFeedback" | "createSimulationReport"
>;

/** The handlers of the attack-simulation operations. */
export function simulationHandlers(dependencies: AnalyticsDependencies): SimulationHandlers {
  const { store } = dependencies;

  /** The simulation of the path, or 404 when it is unknown or of an organization the caller may not see. */
  async function simulationOf(call: AnalyticsCall): Promise<AttackSimulation> {
    const simulation = await store.getSimulation(call.scope, call.params["id"] ?? "");
    if (simulation === undefined) throw notFound("There is no attack simulation with this id among those you may see.");
    return simulation;
  }

  return {
    async getSimulationSummary(call) {
      const simulation = await simulationOf(call);
      sendJson(call.response, 200, await store.simulationSummary(simulation.id));
    },

    async listSimulationUsers(call) {
      const simulation = await simulationOf(call);
      const filter: RecipientFilter = {};
      const query = call.query as RecipientFilter;
      for (const name of ["opened", "clicked", "submittedData", "reported"] as const) {
        if (query[name] !== undefined) (filter as Record<string, boolean>)[name] = query[name];
      }
      call.sendPage(await store.listRecipients(simulation.id, filter, call.page()), renderSimulationUser);
    },

    async getSimulationUser(call) {
      const simulation = await simulationOf(call);
      const recipient = await store.getRecipient(simulation.id, call.params["userId"] ?? "");
      if (recipient === undefined) throw notFound("This user was not a recipient of this attack simulation.");
      sendJson(call.response, 200, renderSimulationUser(recipient));
    },

    async listSimulationFeedback(call) {
      const simulation = await simulationOf(call);
      call.sendPage(await store.listFeedback({ kind: "simulation", id: simulation.id }, call.page()), renderFeedback);
    },

    async createSimulationReport(call) {
      await startReport(dependencies, call, simulationUsersReport, await simulationOf(call));
    },
  };
}
