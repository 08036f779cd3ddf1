/**
 * The analytics store's migrations, in order, in the `"analytics"` namespace of the SQL store's
 * migration runner. Append new versions here; never edit a released one.
 */
import type { Migration } from "scimkit/sql";
import { analyticsTables } from "./0001-analytics-tables.js";
import { organizationSettings } from "./0002-organization-settings.js";
import { organizationParent } from "./0003-organization-parent.js";
import { reportJobs } from "./0004-report-jobs.js";
import { invitationOffers } from "./0005-invitation-offers.js";
import { regionDirectory } from "./0006-region-directory.js";
import { regionMoves } from "./0007-region-moves.js";
import { setupLinks } from "./0008-setup-links.js";

/** The namespace the analytics tables' versions count in (`runMigrations`). */
export const ANALYTICS_MIGRATIONS = "analytics";

/** Every migration of the analytics store, by increasing version. */
export const analyticsMigrations: readonly Migration[] = [
  analyticsTables,
  organizationSettings,
  organizationParent,
  reportJobs,
  invitationOffers,
  regionDirectory,
  regionMoves,
  setupLinks,
];
