/**
 * Every setting of the host server, read from the environment and checked before anything starts.
 * A mistake is reported with every other one at once — the variable, what it held, what it takes —
 * so an operator fixes the configuration in one pass instead of one restart per typo. The table
 * in docs/configuration.md ("Host server environment") lists the same variables.
 */
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { parseOrganizationTokens } from "scimkit";
import { outboundAddressPolicy } from "scimkit/events";
import type { SigningKey } from "scimkit/oauth";

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
}

export type HostSettingsResult =
  | { readonly ok: true; readonly settings: HostSettings; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[]; readonly warnings: readonly string[] };

/** The defaults, the same figures as `defaultHostLimits` (host-server.ts). */
export const hostSettingDefaults = {
  port: 8080,
  requestsPerSecond: 100,
  bodyLimit: 1_048_576,
  bulkMaxOperations: 1000,
  bulkMaxPayload: 1_048_576,
  filterMaxLength: 4096,
  filterMaxDepth: 16,
  pageSizeDefault: 100,
  pageSizeMax: 1000,
  // Within the 30 s most orchestrators wait after SIGTERM before SIGKILL, with room to close the store.
  shutdownGraceMs: 10_000,
  // 1,000 entries with both bodies at the 64 KiB cap is 128 MiB at worst; typical entries are a
  // few KiB. The in-process log is for seeing what an identity provider sends now, not an archive.
  requestLogCapacity: 1000,
  requestLogMaxBodyBytes: 65_536,
  requestLogDays: 7,
  requestLogPerOrganization: 100_000,
  events: true,
  eventLeaseSeconds: 30,
  eventRetryMaxSeconds: 300,
  eventBacklogEvents: 10_000,
  eventBacklogDays: 7,
  eventReceiversPerOrganization: 20,
} as const;

/** Secrets shorter than this are refused: 32 characters is 128 bits of hex, out of reach of guessing. */
export const MIN_SECRET_LENGTH = 32;

/** Every variable the host reads; an unknown `SCIMKIT_*` one is most likely a typo of one of these. */
export const hostVariables = [
  "PORT",
  "DATABASE_URL",
  "SCIMKIT_PUBLIC_URL",
  "SCIMKIT_TRUST_PROXY",
  "SCIMKIT_RATE_LIMIT",
  "SCIMKIT_RATE_BURST",
  "SCIMKIT_BODY_LIMIT",
  "SCIMKIT_BULK_MAX_OPERATIONS",
  "SCIMKIT_BULK_MAX_PAYLOAD",
  "SCIMKIT_FILTER_MAX_LENGTH",
  "SCIMKIT_FILTER_MAX_DEPTH",
  "SCIMKIT_PAGE_SIZE_DEFAULT",
  "SCIMKIT_PAGE_SIZE_MAX",
  "SCIMKIT_LOG_FORMAT",
  "SCIMKIT_SHUTDOWN_GRACE_MS",
  "SCIMKIT_WORKERS",
  "SCIMKIT_REPORT_LEASE_SECONDS",
  "SCIMKIT_ORGS",
  "SCIMKIT_OPERATOR_KEY",
  "SCIMKIT_DEMO_DATA",
  "SCIMKIT_LOG_INVITATION_CODES",
  "SCIMKIT_CURSOR_SECRET",
  "SCIMKIT_REQUEST_LOG",
  "SCIMKIT_REQUEST_LOG_CAPACITY",
  "SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES",
  "SCIMKIT_REQUEST_LOG_DAYS",
  "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION",
  "SCIMKIT_OAUTH_SIGNING_KEY",
  "SCIMKIT_EVENTS",
  "SCIMKIT_EVENT_LEASE_SECONDS",
  "SCIMKIT_EVENT_RETRY_MAX_SECONDS",
  "SCIMKIT_EVENT_BACKLOG_EVENTS",
  "SCIMKIT_EVENT_BACKLOG_DAYS",
  "SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION",
  "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS",
] as const;

/** Variables of the test suite and tools, not the host's: no typo warning for them. */
const notTheHosts = /^SCIMKIT_(TEST_|REQUIRE_|HTTP_|EXPRESS_|BENCH_|SOAK_)/;

const GENERATE = "generate one with `openssl rand -hex 32` or `node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"`";

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const TRUST_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** Reads and checks the host's settings from `env`. */
export function readHostSettings(env: NodeJS.ProcessEnv): HostSettingsResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const raw = (name: (typeof hostVariables)[number]): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const fail = (name: string, value: string, expected: string): undefined => {
    errors.push(`${name}=${JSON.stringify(value)}: expected ${expected}`);
    return undefined;
  };
  const whole = (name: (typeof hostVariables)[number], fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const text = raw(name);
    if (text === undefined) return fallback;
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      fail(name, text, max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const size = (name: (typeof hostVariables)[number], fallback: number): number => {
    const text = raw(name);
    if (text === undefined) return fallback;
    const match = SIZE.exec(text);
    const bytes = match ? Math.floor(Number(match[1]) * (UNITS[(match[2] ?? "b").toLowerCase()] ?? 1)) : 0;
    if (bytes < 1) {
      fail(name, text, 'a size in bytes, or with a unit such as "512kb" or "2mb" (b, kb, mb, gb)');
      return fallback;
    }
    return bytes;
  };

  const port = whole("PORT", hostSettingDefaults.port, 0, 65_535);

  const databaseUrl = raw("DATABASE_URL");
  if (databaseUrl !== undefined && !/^(postgres|postgresql):\/\/|^sqlite:.|^memory:$/.test(databaseUrl)) {
    // The scheme only: a connection string may hold a password.
    errors.push(`DATABASE_URL="${databaseUrl.split(":")[0] ?? ""}:…": expected postgres://…, postgresql://…, sqlite:<path> or memory:`);
  }

  let publicUrl: string | undefined;
  const publicText = raw("SCIMKIT_PUBLIC_URL");
  if (publicText !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(publicText);
    } catch {
      // Reported below; URL.canParse is not in every Node.js 20.
    }
    if (!parsed || !["http:", "https:"].includes(parsed.protocol) || parsed.search !== "" || parsed.hash !== "" || parsed.username !== "") {
      fail(
        "SCIMKIT_PUBLIC_URL",
        publicText,
        "an absolute http:// or https:// URL without query or fragment, e.g. https://scim.example.com",
      );
    } else {
      publicUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
    }
  }

  let trustProxy: boolean | number | string | undefined;
  const trustText = raw("SCIMKIT_TRUST_PROXY");
  if (trustText !== undefined) {
    const expected =
      'false, true, a number of proxy hops, or a comma-separated list of addresses and subnets (e.g. "loopback, 10.0.0.0/8")';
    if (trustText === "false") trustProxy = false;
    else if (trustText === "true") trustProxy = true;
    else if (/^\d+$/.test(trustText)) trustProxy = Number(trustText);
    else {
      const entries = trustText.split(",").map((entry) => entry.trim());
      const valid = entries.every((entry) => {
        if (TRUST_NAMES.has(entry)) return true;
        const [address = "", bits, extra] = entry.split("/");
        if (extra !== undefined) return false;
        const family = isIP(address);
        if (family === 0) return false;
        if (bits === undefined) return true;
        return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
      });
      if (valid) trustProxy = entries.join(",");
      else fail("SCIMKIT_TRUST_PROXY", trustText, expected);
    }
  }

  let rateLimit: HostSettings["rateLimit"] = false;
  const rateText = raw("SCIMKIT_RATE_LIMIT");
  const burstText = raw("SCIMKIT_RATE_BURST");
  if (rateText === "off") {
    if (burstText !== undefined) warnings.push("SCIMKIT_RATE_BURST is ignored: SCIMKIT_RATE_LIMIT is off");
  } else {
    let requestsPerSecond: number = hostSettingDefaults.requestsPerSecond;
    if (rateText !== undefined) {
      const value = Number(rateText);
      if (/^\d+(\.\d+)?$/.test(rateText) && value > 0) requestsPerSecond = value;
      else fail("SCIMKIT_RATE_LIMIT", rateText, 'requests per second (a positive number) or "off"');
    }
    // Twice the rate by default: 100/s with bursts of 200, the library's reference figures.
    let burst = Math.max(1, Math.ceil(requestsPerSecond * 2));
    if (burstText !== undefined) {
      const value = Number(burstText);
      if (/^\d+$/.test(burstText) && value >= 1) burst = value;
      else fail("SCIMKIT_RATE_BURST", burstText, "the most requests at once (a whole number of at least 1)");
    }
    rateLimit = { requestsPerSecond, burst };
  }

  const bodyLimit = size("SCIMKIT_BODY_LIMIT", hostSettingDefaults.bodyLimit);
  const bulk = {
    maxOperations: whole("SCIMKIT_BULK_MAX_OPERATIONS", hostSettingDefaults.bulkMaxOperations, 1),
    maxPayloadSize: size("SCIMKIT_BULK_MAX_PAYLOAD", hostSettingDefaults.bulkMaxPayload),
  };
  const filterLimits = {
    maxLength: whole("SCIMKIT_FILTER_MAX_LENGTH", hostSettingDefaults.filterMaxLength, 1),
    maxDepth: whole("SCIMKIT_FILTER_MAX_DEPTH", hostSettingDefaults.filterMaxDepth, 1),
  };
  const paging = {
    defaultPageSize: whole("SCIMKIT_PAGE_SIZE_DEFAULT", hostSettingDefaults.pageSizeDefault, 1),
    maxPageSize: whole("SCIMKIT_PAGE_SIZE_MAX", hostSettingDefaults.pageSizeMax, 1),
  };
  if (paging.defaultPageSize > paging.maxPageSize) {
    errors.push(
      `SCIMKIT_PAGE_SIZE_DEFAULT=${paging.defaultPageSize} is larger than SCIMKIT_PAGE_SIZE_MAX=${paging.maxPageSize}: expected at most the maximum page size`,
    );
  }

  let logFormat: HostSettings["logFormat"] = "text";
  const logText = raw("SCIMKIT_LOG_FORMAT");
  if (logText === "json" || logText === "text") logFormat = logText;
  else if (logText !== undefined) fail("SCIMKIT_LOG_FORMAT", logText, '"text" or "json" (one JSON object per line)');

  const shutdownGraceMs = whole("SCIMKIT_SHUTDOWN_GRACE_MS", hostSettingDefaults.shutdownGraceMs, 0);

  const reportLeaseMs = whole("SCIMKIT_REPORT_LEASE_SECONDS", 30, 1, 3600) * 1000;

  const onPostgres = databaseUrl !== undefined && /^(postgres|postgresql):\/\//.test(databaseUrl);
  const cores = availableParallelism();
  const workersText = raw("SCIMKIT_WORKERS");
  let workers = onPostgres ? cores : 1;
  if (workersText !== undefined) {
    const count = workersText.toLowerCase() === "auto" ? cores : /^\d+$/.test(workersText) ? Number(workersText) : Number.NaN;
    if (!(count >= 1 && count <= 256))
      fail("SCIMKIT_WORKERS", workersText, `"auto" (this machine's ${cores} cores) or a whole number from 1 to 256`);
    else if (count > 1 && !onPostgres) {
      // SQLite has one writer per file, and memory: each process would hold a store of its own.
      errors.push(
        `SCIMKIT_WORKERS=${workersText}: several workers need DATABASE_URL=postgres://…, which they share; SQLite and memory: serve from one process (1)`,
      );
    } else workers = count;
  }

  let organizations: HostSettings["organizations"];
  const orgsText = raw("SCIMKIT_ORGS");
  if (orgsText !== undefined) {
    try {
      organizations = parseOrganizationTokens(orgsText);
      for (const [orgId, tokens] of Object.entries(organizations)) {
        if (tokens.some((token) => token.length < MIN_SECRET_LENGTH)) {
          // Never echo the token itself: the message goes to logs.
          errors.push(`SCIMKIT_ORGS: the token of organization "${orgId}" has fewer than ${MIN_SECRET_LENGTH} characters; ${GENERATE}`);
        }
      }
    } catch (error) {
      errors.push(`SCIMKIT_ORGS: ${error instanceof Error ? error.message : String(error)}; expected "org1:token1,org2:token2"`);
    }
  }

  const operatorKey = raw("SCIMKIT_OPERATOR_KEY");
  if (operatorKey !== undefined && (operatorKey.length < MIN_SECRET_LENGTH || /\s/.test(operatorKey))) {
    errors.push(`SCIMKIT_OPERATOR_KEY: expected at least ${MIN_SECRET_LENGTH} characters and no whitespace; ${GENERATE}`);
  }

  const flag = (name: (typeof hostVariables)[number], fallback: boolean, meaning: string): boolean => {
    const text = raw(name);
    if (text === undefined) return fallback;
    const lower = text.toLowerCase();
    if (["0", "false"].includes(lower)) return false;
    if (["1", "true"].includes(lower)) return true;
    fail(name, text, meaning);
    return fallback;
  };
  const demoData = flag("SCIMKIT_DEMO_DATA", true, '"0" or "false" to skip the demo data, "1" or "true" to seed it');
  const logInvitationCodes = flag(
    "SCIMKIT_LOG_INVITATION_CODES",
    false,
    '"1" or "true" to write invitation codes to the log (demos only), "0" or "false" not to',
  );

  const cursorSecret = raw("SCIMKIT_CURSOR_SECRET");
  if (cursorSecret !== undefined && cursorSecret.length < MIN_SECRET_LENGTH) {
    errors.push(
      `SCIMKIT_CURSOR_SECRET: expected at least ${MIN_SECRET_LENGTH} characters, the same on every host of one database; ${GENERATE}`,
    );
  }

  const requestLog = readRequestLog(raw, whole, size, fail, warnings, databaseUrl === "memory:");

  const eventsText = raw("SCIMKIT_EVENTS")?.toLowerCase();
  let eventsEnabled: boolean = hostSettingDefaults.events;
  if (eventsText === "on" || eventsText === "off") eventsEnabled = eventsText === "on";
  else if (eventsText !== undefined)
    fail("SCIMKIT_EVENTS", eventsText, '"on" (record events and push them to registered receivers) or "off"');
  const allowText = raw("SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS");
  const receiverAllowHosts = allowText === undefined ? [] : allowText.split(",").map((entry) => entry.trim());
  try {
    outboundAddressPolicy({ allowHosts: receiverAllowHosts });
  } catch (error) {
    fail(
      "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS",
      allowText ?? "",
      `a comma list of host names, IP addresses and CIDR ranges, e.g. 127.0.0.1,10.0.0.0/8,siem.corp.example (${error instanceof Error ? error.message.replace(/^scimkit: allowHosts /, "") : String(error)})`,
    );
  }
  const events = {
    enabled: eventsEnabled,
    leaseMs: whole("SCIMKIT_EVENT_LEASE_SECONDS", hostSettingDefaults.eventLeaseSeconds, 1, 3600) * 1000,
    retryMaxMs: whole("SCIMKIT_EVENT_RETRY_MAX_SECONDS", hostSettingDefaults.eventRetryMaxSeconds, 1, 86_400) * 1000,
    backlogMaxEvents: whole("SCIMKIT_EVENT_BACKLOG_EVENTS", hostSettingDefaults.eventBacklogEvents, 1, 10_000_000),
    backlogMaxAgeMs: whole("SCIMKIT_EVENT_BACKLOG_DAYS", hostSettingDefaults.eventBacklogDays, 1, 365) * 86_400_000,
    maxReceiversPerOrganization: whole(
      "SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION",
      hostSettingDefaults.eventReceiversPerOrganization,
      1,
      1000,
    ),
    receiverAllowHosts,
  };
  if (!eventsEnabled) {
    // Every SCIMKIT_EVENT_* figure: each means nothing without the events.
    for (const name of hostVariables.filter((variable) => variable.startsWith("SCIMKIT_EVENT_"))) {
      if (raw(name) !== undefined) warnings.push(`${name} is ignored: SCIMKIT_EVENTS is off`);
    }
  }

  for (const name of Object.keys(env)) {
    if (!name.startsWith("SCIMKIT_") || notTheHosts.test(name) || (hostVariables as readonly string[]).includes(name)) continue;
    const closest = closestVariable(name);
    warnings.push(`${name} is not a setting of the host and is ignored${closest === undefined ? "" : `; did you mean ${closest}?`}`);
  }

  let oauthSigningKey: SigningKey | undefined;
  const keyText = raw("SCIMKIT_OAUTH_SIGNING_KEY");
  if (keyText !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(keyText);
    } catch {
      // Reported below.
    }
    const jwk = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as SigningKey) : undefined;
    if (jwk === undefined || typeof jwk.kty !== "string" || typeof jwk.d !== "string") {
      // Never the value: it is a private key.
      errors.push(
        "SCIMKIT_OAUTH_SIGNING_KEY: expected a private JWK as JSON; generate one with `node --input-type=module -e \"import { generateSigningKey } from 'scimkit/oauth'; console.log(JSON.stringify(await generateSigningKey()))\"`",
      );
    } else {
      oauthSigningKey = jwk;
    }
  }

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
    },
  };
}

/** `SCIMKIT_REQUEST_LOG` and its two figures; the readers and reporters are `readHostSettings`'s. */
function readRequestLog(
  raw: (name: (typeof hostVariables)[number]) => string | undefined,
  whole: (name: (typeof hostVariables)[number], fallback: number, min: number, max?: number) => number,
  size: (name: (typeof hostVariables)[number], fallback: number) => number,
  fail: (name: string, value: string, expected: string) => undefined,
  warnings: string[],
  onMemory: boolean,
): HostSettings["requestLog"] {
  const kindText = raw("SCIMKIT_REQUEST_LOG");
  let kind: HostSettings["requestLog"]["kind"] = onMemory ? "memory" : "database";
  if (kindText === "off" || kindText === "memory" || kindText === "database") kind = kindText;
  else if (kindText !== undefined) {
    fail(
      "SCIMKIT_REQUEST_LOG",
      kindText,
      '"database" (in the store\'s database, the default on SQLite and PostgreSQL), "memory" (the newest requests, in this process) or "off"',
    );
  }
  if (kind === "database" && onMemory) {
    fail("SCIMKIT_REQUEST_LOG", "database", '"memory" or "off" with DATABASE_URL=memory:, which has no database to keep it in');
  }
  const capacity = whole("SCIMKIT_REQUEST_LOG_CAPACITY", hostSettingDefaults.requestLogCapacity, 1);
  // 0 keeps no bodies at all (method, path, status and the rest still), which `size` refuses.
  const maxBodyBytes =
    raw("SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES") === "0"
      ? 0
      : size("SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES", hostSettingDefaults.requestLogMaxBodyBytes);
  const maxAgeDays = whole("SCIMKIT_REQUEST_LOG_DAYS", hostSettingDefaults.requestLogDays, 1, 3650);
  const maxEntriesPerOrg = whole("SCIMKIT_REQUEST_LOG_PER_ORGANIZATION", hostSettingDefaults.requestLogPerOrganization, 1);
  const ignored = (names: readonly (typeof hostVariables)[number][], why: string): void => {
    for (const name of names) if (raw(name) !== undefined) warnings.push(`${name} is ignored: ${why}`);
  };
  if (kind === "off") {
    ignored(
      [
        "SCIMKIT_REQUEST_LOG_CAPACITY",
        "SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES",
        "SCIMKIT_REQUEST_LOG_DAYS",
        "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION",
      ],
      "SCIMKIT_REQUEST_LOG is off",
    );
  } else if (kind === "memory") {
    ignored(["SCIMKIT_REQUEST_LOG_DAYS", "SCIMKIT_REQUEST_LOG_PER_ORGANIZATION"], "the provisioning log is in memory");
  } else ignored(["SCIMKIT_REQUEST_LOG_CAPACITY"], "the provisioning log is in the database");
  return { kind, capacity, maxBodyBytes, maxAgeDays, maxEntriesPerOrg };
}

/** The known variable nearest to `name` by edit distance, if near enough to be a typo of it. */
function closestVariable(name: string): string | undefined {
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const known of hostVariables) {
    const distance = editDistance(name, known);
    if (best === undefined || distance < best.distance) best = { name: known, distance };
  }
  return best !== undefined && best.distance <= Math.max(3, Math.floor(name.length / 4)) ? best.name : undefined;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
