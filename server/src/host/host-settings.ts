/**
 * Every setting of the host server, read from the environment and checked before anything starts.
 * A mistake is reported with every other one at once — the variable, what it held, what it takes —
 * so an operator fixes the configuration in one pass instead of one restart per typo. The table
 * in docs/configuration.md ("Host server environment") lists the same variables. Each group of
 * variables has its reader in settings/, over one `SettingReader` that collects the mistakes.
 */
import type { SigningKey } from "scimkit/oauth";
import { hostSettingDefaults } from "./settings/host-setting-defaults.js";
import { readEvents } from "./settings/read-events.js";
import { readPublicUrl, readTrustProxy } from "./settings/read-public-address.js";
import { readRegions } from "./settings/read-regions.js";
import { readRateLimit } from "./settings/read-rate-limit.js";
import { readRequestLog } from "./settings/read-request-log.js";
import { readCursorSecret, readOAuthSigningKey, readOperatorKey, readOrganizations } from "./settings/read-secrets.js";
import { readWorkers } from "./settings/read-workers.js";
import { fail, flag, raw, settingReader, size, whole } from "./settings/setting-reader.js";
import { warnUnknownVariables } from "./settings/warn-unknown-variables.js";

export { hostSettingDefaults, MIN_SECRET_LENGTH } from "./settings/host-setting-defaults.js";
export { hostVariables } from "./settings/host-variables.js";

/** The host's settings, each default filled in. */
export interface HostSettings {
  readonly port: number;
  /** `DATABASE_URL`; undefined: the default SQLite file. */
  readonly databaseUrl: string | undefined;
  /** `SCIMKIT_PUBLIC_URL` without a trailing slash; undefined: `Location` follows the request's host. */
  readonly publicUrl: string | undefined;
  /** Express's `trust proxy`; undefined: trust no proxy. */
  readonly trustProxy: boolean | number | string | undefined;
  /** Per organization (SCIM) and per API key (analytics), or `false` for no limit. */
  readonly rateLimit: { readonly requestsPerSecond: number; readonly burst: number } | false;
  readonly bodyLimit: number;
  readonly bulk: { readonly maxOperations: number; readonly maxPayloadSize: number };
  readonly filterLimits: { readonly maxLength: number; readonly maxDepth: number };
  readonly paging: { readonly defaultPageSize: number; readonly maxPageSize: number };
  readonly logFormat: "text" | "json";
  readonly shutdownGraceMs: number;
  /** `SCIMKIT_REPORT_LEASE_SECONDS`: how long a report job's host may go silent before another host takes it over. */
  readonly reportLeaseMs: number;
  /**
   * `SCIMKIT_WORKERS`: host processes behind the one port (Node's cluster module). Default: the
   * machine's cores on PostgreSQL, 1 on SQLite and memory (one writer, one process's memory).
   */
  readonly workers: number;
  /** `SCIMKIT_ORGS`; undefined: the demo organization. */
  readonly organizations: Readonly<Record<string, readonly string[]>> | undefined;
  readonly operatorKey: string | undefined;
  readonly demoData: boolean;
  /** `SCIMKIT_LOG_INVITATION_CODES`: write admin-user invitation codes to the log (demos only); default false. */
  readonly logInvitationCodes: boolean;
  /** `SCIMKIT_CURSOR_SECRET`; undefined: the host uses the one its database keeps (`HostStore.cursorSecret`). */
  readonly cursorSecret: string | undefined;
  /**
   * The provisioning log (issue 18): `SCIMKIT_REQUEST_LOG` (`off`, or `memory`: the newest
   * `capacity` requests of every organization together, in this process),
   * `SCIMKIT_REQUEST_LOG_CAPACITY` and `SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES`.
   */
  /**
   * `SCIMKIT_REQUEST_LOG*`: where the provisioning log is kept — in the store's database (the
   * default on SQLite and PostgreSQL), in this process's memory (the default on memory), or not
   * at all — with the memory log's capacity and the database log's retention.
   */
  readonly requestLog: {
    readonly kind: "off" | "memory" | "database";
    readonly capacity: number;
    readonly maxBodyBytes: number;
    readonly maxAgeDays: number;
    readonly maxEntriesPerOrg: number;
  };
  /**
   * `SCIMKIT_OAUTH_SIGNING_KEY`: the private JWK (JSON) the OAuth 2.0 token endpoint signs access
   * tokens with, the same on every host; undefined: no token endpoint, bearer tokens only.
   */
  readonly oauthSigningKey: SigningKey | undefined;
  /**
   * RFC 9967 security events (issue 20): `SCIMKIT_EVENTS` (`on`: every write records its events in
   * the store's outbox, and the host pushes them as signed SETs to the receivers operators
   * register; `off`: neither), `SCIMKIT_EVENT_LEASE_SECONDS` (how long a host that claimed a
   * receiver may go silent before another host pushes to it) and `SCIMKIT_EVENT_RETRY_MAX_SECONDS`
   * (the longest wait between two attempts at a failing receiver), `SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS`
   * (host names, addresses and CIDR ranges push receivers may be at although the address rules
   * refuse them: on-premises receivers); `SCIMKIT_EVENT_BACKLOG_EVENTS` and `SCIMKIT_EVENT_BACKLOG_DAYS`
   * (how many events, and for how long, the outbox keeps for a receiver that lags before dropping
   * them) and `SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION` (the most receivers one organization may register).
   */
  readonly events: {
    readonly enabled: boolean;
    readonly leaseMs: number;
    readonly retryMaxMs: number;
    readonly backlogMaxEvents: number;
    readonly backlogMaxAgeMs: number;
    readonly maxReceiversPerOrganization: number;
    readonly receiverAllowHosts: readonly string[];
  };
  /**
   * Data residency (spec §2.1, issue 30): `SCIMKIT_REGION` (the region this host serves: its
   * database holds the organizations homed there), `SCIMKIT_REGIONS` (every region's public base
   * URL, this one's included: `publicUrl` is this one's), `SCIMKIT_REGION_KEY` (the secret the
   * regions' hosts read each other's directory with) and `SCIMKIT_REGION_SYNC_SECONDS`. Undefined:
   * one region, this host.
   */
  readonly regions:
    | {
        readonly self: string;
        readonly baseUrls: Readonly<Record<string, string>>;
        readonly key: string | undefined;
        readonly syncMs: number;
        /** `SCIMKIT_REGION_MOVE_STEP_MS`: the least time each step of a move takes (0: none). */
        readonly moveStepMs: number;
      }
    | undefined;
}

export type HostSettingsResult =
  | { readonly ok: true; readonly settings: HostSettings; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[]; readonly warnings: readonly string[] };

/** Reads and checks the host's settings from `env`. */
export function readHostSettings(env: NodeJS.ProcessEnv): HostSettingsResult {
  const reader = settingReader(env);
  const { errors, warnings } = reader;
  // The order of the reads is the order of the errors an operator is shown.
  const port = whole(reader, "PORT", hostSettingDefaults.port, 0, 65_535);

  const databaseUrl = raw(reader, "DATABASE_URL");
  if (databaseUrl !== undefined && !/^(postgres|postgresql):\/\/|^sqlite:.|^memory:$/.test(databaseUrl)) {
    // The scheme only: a connection string may hold a password.
    errors.push(`DATABASE_URL="${databaseUrl.split(":")[0] ?? ""}:…": expected postgres://…, postgresql://…, sqlite:<path> or memory:`);
  }

  const givenPublicUrl = readPublicUrl(reader);
  const regions = readRegions(reader, givenPublicUrl);
  // In a region, the host's public URL is the one the other regions send its organizations to.
  const publicUrl = regions ? regions.baseUrls[regions.self] : givenPublicUrl;
  const trustProxy = readTrustProxy(reader);
  const rateLimit = readRateLimit(reader);

  const bodyLimit = size(reader, "SCIMKIT_BODY_LIMIT", hostSettingDefaults.bodyLimit);
  const bulk = {
    maxOperations: whole(reader, "SCIMKIT_BULK_MAX_OPERATIONS", hostSettingDefaults.bulkMaxOperations, 1),
    maxPayloadSize: size(reader, "SCIMKIT_BULK_MAX_PAYLOAD", hostSettingDefaults.bulkMaxPayload),
  };
  const filterLimits = {
    maxLength: whole(reader, "SCIMKIT_FILTER_MAX_LENGTH", hostSettingDefaults.filterMaxLength, 1),
    maxDepth: whole(reader, "SCIMKIT_FILTER_MAX_DEPTH", hostSettingDefaults.filterMaxDepth, 1),
  };
  const paging = {
    defaultPageSize: whole(reader, "SCIMKIT_PAGE_SIZE_DEFAULT", hostSettingDefaults.pageSizeDefault, 1),
    maxPageSize: whole(reader, "SCIMKIT_PAGE_SIZE_MAX", hostSettingDefaults.pageSizeMax, 1),
  };
  if (paging.defaultPageSize > paging.maxPageSize) {
    errors.push(
      `SCIMKIT_PAGE_SIZE_DEFAULT=${paging.defaultPageSize} is larger than SCIMKIT_PAGE_SIZE_MAX=${paging.maxPageSize}: expected at most the maximum page size`,
    );
  }

  let logFormat: HostSettings["logFormat"] = "text";
  const logText = raw(reader, "SCIMKIT_LOG_FORMAT");
  if (logText === "json" || logText === "text") logFormat = logText;
  else if (logText !== undefined) fail(reader, "SCIMKIT_LOG_FORMAT", logText, '"text" or "json" (one JSON object per line)');

  const shutdownGraceMs = whole(reader, "SCIMKIT_SHUTDOWN_GRACE_MS", hostSettingDefaults.shutdownGraceMs, 0);
  const reportLeaseMs = whole(reader, "SCIMKIT_REPORT_LEASE_SECONDS", 30, 1, 3600) * 1000;
  const workers = readWorkers(reader, databaseUrl);
  const organizations = readOrganizations(reader);
  const operatorKey = readOperatorKey(reader);
  const demoData = flag(reader, "SCIMKIT_DEMO_DATA", true, '"0" or "false" to skip the demo data, "1" or "true" to seed it');
  const logInvitationCodes = flag(
    reader,
    "SCIMKIT_LOG_INVITATION_CODES",
    false,
    '"1" or "true" to write invitation codes to the log (demos only), "0" or "false" not to',
  );
  const cursorSecret = readCursorSecret(reader);
  const requestLog = readRequestLog(reader, databaseUrl === "memory:");
  const events = readEvents(reader);
  warnUnknownVariables(reader);
  const oauthSigningKey = readOAuthSigningKey(reader);

  if (errors.length > 0) return { ok: false, errors, warnings };
  return {
    ok: true,
    warnings,
    settings: {
      port,
      databaseUrl,
      publicUrl,
      trustProxy,
      rateLimit,
      bodyLimit,
      bulk,
      filterLimits,
      paging,
      logFormat,
      shutdownGraceMs,
      reportLeaseMs,
      workers,
      organizations,
      operatorKey,
      demoData,
      logInvitationCodes,
      cursorSecret,
      requestLog,
      oauthSigningKey,
      events,
      regions,
    },
  };
}
