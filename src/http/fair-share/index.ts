/**
 * `scimkit/fair-share` (docs/security.md "Fair share between organizations"): what the router's
 * `fairShare` option is made of. An `ExpensiveWorkGate` admits expensive work — a large list, a
 * Bulk request, a large body — so that one organization's import cannot starve the others;
 * `fairShareGate` is the built-in gate, a `WorkClassifier` says which work is expensive and what
 * it costs, `expensiveWorkClassifier` is the built-in one. Give your own to share one gate
 * between several routers, or to change the thresholds.
 */
export { fairShareGate } from "./fair-share-gate.js";
export type { FairShareGateOptions } from "./fair-share-gate.js";
export type { ExpensiveWorkGate, WorkPermit } from "./expensive-work-gate.js";
export type { BodyWork, BulkWork, ListWork, ScimWork, WorkClassifier } from "./work-classifier.js";
export { expensiveWorkClassifier } from "./expensive-work-classifier.js";
export type { ExpensiveWorkOptions } from "./expensive-work-classifier.js";
