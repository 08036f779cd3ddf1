import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { hostSettingDefaults, readHostSettings, type HostSettings } from "./host-settings.js";

const TOKEN = "0123456789abcdef0123456789abcdef";
/** A P-256 private JWK's shape (its values need not be a real key to be read; the server checks them at start). */
const SIGNING_KEY = { kty: "EC", crv: "P-256", x: "x-coordinate", y: "y-coordinate", d: "private-part", kid: "k1" };

function settings(env: Record<string, string>): HostSettings {
  const result = readHostSettings(env);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result.settings;
}

function errors(env: Record<string, string>): readonly string[] {
  const result = readHostSettings(env);
  return result.ok ? [] : result.errors;
}

describe("readHostSettings", () => {
  it("fills every default from an empty environment", () => {
    expect(settings({})).toEqual({
      port: 8080,
      databaseUrl: undefined,
      publicUrl: undefined,
      trustProxy: undefined,
      rateLimit: { requestsPerSecond: 100, burst: 200 },
      bodyLimit: hostSettingDefaults.bodyLimit,
      bulk: { maxOperations: 1000, maxPayloadSize: 1_048_576 },
      filterLimits: { maxLength: 4096, maxDepth: 16 },
      paging: { defaultPageSize: 100, maxPageSize: 1000 },
      logFormat: "text",
      shutdownGraceMs: 10_000,
      reportLeaseMs: 30_000,
      workers: 1,
      organizations: undefined,
      operatorKey: undefined,
      demoData: true,
      logInvitationCodes: false,
      cursorSecret: undefined,
      requestLog: { kind: "database", capacity: 1000, maxBodyBytes: 65_536, maxAgeDays: 7, maxEntriesPerOrg: 100_000 },
      oauthSigningKey: undefined,
      events: {
        enabled: true,
        leaseMs: 30_000,
        retryMaxMs: 300_000,
        backlogMaxEvents: 10_000,
        backlogMaxAgeMs: 7 * 86_400_000,
        maxReceiversPerOrganization: 20,
        receiverAllowHosts: [],
      },
      regions: undefined,
    });
  });

  it("reads every variable", () => {
    const read = settings({
      PORT: "0",
      DATABASE_URL: "postgres://u:p@db/scim",
      SCIMKIT_PUBLIC_URL: "https://scim.example.com/idp/",
      SCIMKIT_TRUST_PROXY: "loopback, 10.0.0.0/8, ::1",
      SCIMKIT_RATE_LIMIT: "20",
      SCIMKIT_RATE_BURST: "50",
      SCIMKIT_BODY_LIMIT: "512kb",
      SCIMKIT_BULK_MAX_OPERATIONS: "50",
      SCIMKIT_BULK_MAX_PAYLOAD: "2mb",
      SCIMKIT_FILTER_MAX_LENGTH: "1000",
      SCIMKIT_FILTER_MAX_DEPTH: "8",
      SCIMKIT_PAGE_SIZE_DEFAULT: "50",
      SCIMKIT_PAGE_SIZE_MAX: "200",
      SCIMKIT_LOG_FORMAT: "json",
      SCIMKIT_SHUTDOWN_GRACE_MS: "2500",
      SCIMKIT_REPORT_LEASE_SECONDS: "5",
      SCIMKIT_ORGS: `acme:${TOKEN}`,
      SCIMKIT_OPERATOR_KEY: `${TOKEN}x`,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_LOG_INVITATION_CODES: "true",
      SCIMKIT_CURSOR_SECRET: TOKEN,
      SCIMKIT_REQUEST_LOG: "memory",
      SCIMKIT_REQUEST_LOG_CAPACITY: "250",
      SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES: "16kb",
      SCIMKIT_OAUTH_SIGNING_KEY: JSON.stringify(SIGNING_KEY),
      SCIMKIT_EVENTS: "on",
      SCIMKIT_EVENT_LEASE_SECONDS: "7",
      SCIMKIT_EVENT_RETRY_MAX_SECONDS: "60",
      SCIMKIT_EVENT_BACKLOG_EVENTS: "500",
      SCIMKIT_EVENT_BACKLOG_DAYS: "2",
      SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION: "5",
      SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1, 10.0.0.0/8,siem.corp.example",
    });
    expect(read).toEqual({
      port: 0,
      databaseUrl: "postgres://u:p@db/scim",
      publicUrl: "https://scim.example.com/idp",
      trustProxy: "loopback,10.0.0.0/8,::1",
      rateLimit: { requestsPerSecond: 20, burst: 50 },
      bodyLimit: 512 * 1024,
      bulk: { maxOperations: 50, maxPayloadSize: 2 * 1024 * 1024 },
      filterLimits: { maxLength: 1000, maxDepth: 8 },
      paging: { defaultPageSize: 50, maxPageSize: 200 },
      logFormat: "json",
      shutdownGraceMs: 2500,
      reportLeaseMs: 5000,
      workers: availableParallelism(),
      organizations: { acme: [TOKEN] },
      operatorKey: `${TOKEN}x`,
      demoData: false,
      logInvitationCodes: true,
      cursorSecret: TOKEN,
      requestLog: { kind: "memory", capacity: 250, maxBodyBytes: 16 * 1024, maxAgeDays: 7, maxEntriesPerOrg: 100_000 },
      oauthSigningKey: SIGNING_KEY,
      events: {
        enabled: true,
        leaseMs: 7000,
        retryMaxMs: 60_000,
        backlogMaxEvents: 500,
        backlogMaxAgeMs: 2 * 86_400_000,
        maxReceiversPerOrganization: 5,
        receiverAllowHosts: ["127.0.0.1", "10.0.0.0/8", "siem.corp.example"],
      },
    });
  });

  it("reads the hosts push receivers may be at despite the address rules, and refuses an entry that is none", () => {
    const none = readHostSettings({});
    expect(none.ok && none.settings.events.receiverAllowHosts).toEqual([]);
    expect(errors({ SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1,10.0.0.0/33" })).toEqual([
      'SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS="127.0.0.1,10.0.0.0/33": expected a comma list of host names, IP addresses and CIDR ranges, e.g. 127.0.0.1,10.0.0.0/8,siem.corp.example (entry "10.0.0.0/33" is not a host name, an IP address or a CIDR range (e.g. 10.0.0.0/8))',
    ]);
    expect(errors({ SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "https://siem.example/" })).toHaveLength(1);
    const off = readHostSettings({ SCIMKIT_EVENTS: "off", SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS: "127.0.0.1" });
    expect(off.warnings).toEqual(["SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS is ignored: SCIMKIT_EVENTS is off"]);
  });

  it("turns security events off, warning of their figures then ignored, and refuses what it does not know", () => {
    const off = readHostSettings({ SCIMKIT_EVENTS: "off", SCIMKIT_EVENT_LEASE_SECONDS: "5" });
    expect(off.ok && off.settings.events.enabled).toBe(false);
    expect(off.warnings).toEqual(["SCIMKIT_EVENT_LEASE_SECONDS is ignored: SCIMKIT_EVENTS is off"]);
    expect(errors({ SCIMKIT_EVENTS: "yes" })).toEqual([
      'SCIMKIT_EVENTS="yes": expected "on" (record events and push them to registered receivers) or "off"',
    ]);
    expect(errors({ SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION: "0", SCIMKIT_EVENT_BACKLOG_DAYS: "x" })).toEqual([
      'SCIMKIT_EVENT_BACKLOG_DAYS="x": expected a whole number from 1 to 365',
      'SCIMKIT_EVENT_RECEIVERS_PER_ORGANIZATION="0": expected a whole number from 1 to 1000',
    ]);
    expect(errors({ SCIMKIT_EVENT_RETRY_MAX_SECONDS: "0" })).toEqual([
      'SCIMKIT_EVENT_RETRY_MAX_SECONDS="0": expected a whole number from 1 to 86400',
    ]);
  });

  it("runs one worker per core on PostgreSQL, one on SQLite and memory, and refuses several there", () => {
    const postgres = { DATABASE_URL: "postgres://db/scim" };
    expect(settings(postgres).workers).toBe(availableParallelism());
    expect(settings({ ...postgres, SCIMKIT_WORKERS: "3" }).workers).toBe(3);
    expect(settings({ ...postgres, SCIMKIT_WORKERS: "auto" }).workers).toBe(availableParallelism());
    expect(settings({ DATABASE_URL: "sqlite:./x.db" }).workers).toBe(1);
    expect(settings({ SCIMKIT_WORKERS: "1" }).workers).toBe(1);
    expect(errors({ SCIMKIT_WORKERS: "2" })).toEqual([
      "SCIMKIT_WORKERS=2: several workers need DATABASE_URL=postgres://…, which they share; SQLite and memory: serve from one process (1)",
    ]);
    expect(errors({ ...postgres, SCIMKIT_WORKERS: "0" })).toEqual([
      `SCIMKIT_WORKERS="0": expected "auto" (this machine's ${availableParallelism()} cores) or a whole number from 1 to 256`,
    ]);
  });

  it("turns the provisioning log off, warning of its figures then ignored, and keeps no bodies with a size of 0", () => {
    const off = readHostSettings({ SCIMKIT_REQUEST_LOG: "off", SCIMKIT_REQUEST_LOG_CAPACITY: "10" });
    expect(off.ok && off.settings.requestLog.kind).toBe("off");
    expect(off.warnings).toEqual(["SCIMKIT_REQUEST_LOG_CAPACITY is ignored: SCIMKIT_REQUEST_LOG is off"]);
    expect(settings({ SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES: "0", DATABASE_URL: "memory:" }).requestLog).toEqual({
      kind: "memory",
      capacity: 1000,
      maxBodyBytes: 0,
      maxAgeDays: 7,
      maxEntriesPerOrg: 100_000,
    });
    const database = readHostSettings({
      SCIMKIT_REQUEST_LOG_DAYS: "30",
      SCIMKIT_REQUEST_LOG_PER_ORGANIZATION: "5000",
      SCIMKIT_REQUEST_LOG_CAPACITY: "9",
    });
    expect(database.ok && database.settings.requestLog).toEqual({
      kind: "database",
      capacity: 9,
      maxBodyBytes: 65_536,
      maxAgeDays: 30,
      maxEntriesPerOrg: 5000,
    });
    expect(database.warnings).toEqual(["SCIMKIT_REQUEST_LOG_CAPACITY is ignored: the provisioning log is in the database"]);
  });

  it("refuses a provisioning log it does not know, and figures that are not sizes, each with what it takes", () => {
    expect(errors({ SCIMKIT_REQUEST_LOG: "database", DATABASE_URL: "memory:" })).toEqual([
      'SCIMKIT_REQUEST_LOG="database": expected "memory" or "off" with DATABASE_URL=memory:, which has no database to keep it in',
    ]);
    expect(errors({ SCIMKIT_REQUEST_LOG: "sqlite", SCIMKIT_REQUEST_LOG_CAPACITY: "0", SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES: "-1" })).toEqual([
      'SCIMKIT_REQUEST_LOG="sqlite": expected "database" (in the store\'s database, the default on SQLite and PostgreSQL), "memory" (the newest requests, in this process) or "off"',
      'SCIMKIT_REQUEST_LOG_CAPACITY="0": expected a whole number of at least 1',
      'SCIMKIT_REQUEST_LOG_MAX_BODY_BYTES="-1": expected a size in bytes, or with a unit such as "512kb" or "2mb" (b, kb, mb, gb)',
    ]);
  });

  it("turns the rate limit off, and reads trust proxy as Express does", () => {
    expect(settings({ SCIMKIT_RATE_LIMIT: "off" }).rateLimit).toBe(false);
    expect(settings({ SCIMKIT_RATE_LIMIT: "10" }).rateLimit).toEqual({ requestsPerSecond: 10, burst: 20 });
    expect(settings({ SCIMKIT_TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(settings({ SCIMKIT_TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(settings({ SCIMKIT_TRUST_PROXY: "2" }).trustProxy).toBe(2);
  });

  it("lists every bad variable at once, each with what it expects", () => {
    expect(
      errors({
        SCIMKIT_RATE_LIMIT: "abc",
        SCIMKIT_RATE_BURST: "-1",
        PORT: "70000",
        SCIMKIT_PUBLIC_URL: "scim.example.com",
        SCIMKIT_TRUST_PROXY: "10.0.0.0/40",
        SCIMKIT_BODY_LIMIT: "lots",
        SCIMKIT_LOG_FORMAT: "xml",
        SCIMKIT_PAGE_SIZE_DEFAULT: "0",
        SCIMKIT_DEMO_DATA: "maybe",
        SCIMKIT_LOG_INVITATION_CODES: "yes",
        DATABASE_URL: "mysql://root:secret@db/x",
      }),
    ).toEqual([
      'PORT="70000": expected a whole number from 0 to 65535',
      'DATABASE_URL="mysql:…": expected postgres://…, postgresql://…, sqlite:<path> or memory:',
      'SCIMKIT_PUBLIC_URL="scim.example.com": expected an absolute http:// or https:// URL without query or fragment, e.g. https://scim.example.com',
      'SCIMKIT_TRUST_PROXY="10.0.0.0/40": expected false, true, a number of proxy hops, or a comma-separated list of addresses and subnets (e.g. "loopback, 10.0.0.0/8")',
      'SCIMKIT_RATE_LIMIT="abc": expected requests per second (a positive number) or "off"',
      'SCIMKIT_RATE_BURST="-1": expected the most requests at once (a whole number of at least 1)',
      'SCIMKIT_BODY_LIMIT="lots": expected a size in bytes, or with a unit such as "512kb" or "2mb" (b, kb, mb, gb)',
      'SCIMKIT_PAGE_SIZE_DEFAULT="0": expected a whole number of at least 1',
      'SCIMKIT_LOG_FORMAT="xml": expected "text" or "json" (one JSON object per line)',
      'SCIMKIT_DEMO_DATA="maybe": expected "0" or "false" to skip the demo data, "1" or "true" to seed it',
      'SCIMKIT_LOG_INVITATION_CODES="yes": expected "1" or "true" to write invitation codes to the log (demos only), "0" or "false" not to',
    ]);
  });

  it("never echoes a password of DATABASE_URL", () => {
    expect(errors({ DATABASE_URL: "mysql://root:secret@db/x" }).join("\n")).not.toMatch(/secret/);
  });

  it("refuses a page size default above the maximum", () => {
    expect(errors({ SCIMKIT_PAGE_SIZE_DEFAULT: "500", SCIMKIT_PAGE_SIZE_MAX: "100" })).toEqual([
      "SCIMKIT_PAGE_SIZE_DEFAULT=500 is larger than SCIMKIT_PAGE_SIZE_MAX=100: expected at most the maximum page size",
    ]);
  });

  it("refuses configured tokens, operator keys and cursor secrets under 32 characters, saying how to generate one, never echoing them", () => {
    const found = errors({ SCIMKIT_ORGS: `demo:abc,acme:${TOKEN}`, SCIMKIT_OPERATOR_KEY: "short", SCIMKIT_CURSOR_SECRET: "tiny" });
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(
      /^SCIMKIT_ORGS: the token of organization "demo" has fewer than 32 characters; generate one with `openssl rand -hex 32`/,
    );
    expect(found[1]).toMatch(/^SCIMKIT_OPERATOR_KEY: expected at least 32 characters/);
    expect(found[2]).toMatch(/^SCIMKIT_CURSOR_SECRET: expected at least 32 characters/);
    expect(found.join("\n")).not.toMatch(/abc|short|tiny/);
    expect(errors({ SCIMKIT_ORGS: "north" })[0]).toMatch(/^SCIMKIT_ORGS: organization tokens: entry 1 of 1 has no ":"/);
  });

  it("warns of an unknown SCIMKIT_ variable, naming the one it is probably a typo of", () => {
    const result = readHostSettings({
      SCIMKIT_RATE_LIMT: "5",
      SCIMKIT_PUBLIC_ULR: "x",
      SCIMKIT_SOMETHING_ELSE_ENTIRELY: "1",
      SCIMKIT_TEST_POSTGRES_URL: "postgres://x",
    });
    expect(result.warnings).toEqual([
      "SCIMKIT_RATE_LIMT is not a setting of the host and is ignored; did you mean SCIMKIT_RATE_LIMIT?",
      "SCIMKIT_PUBLIC_ULR is not a setting of the host and is ignored; did you mean SCIMKIT_PUBLIC_URL?",
      "SCIMKIT_SOMETHING_ELSE_ENTIRELY is not a setting of the host and is ignored",
    ]);
  });
});

describe("readHostSettings: SCIMKIT_OAUTH_SIGNING_KEY", () => {
  it("refuses what is not a private JWK, without repeating the value", () => {
    for (const value of ["not json", "[1]", '{"kty":"EC"}', JSON.stringify({ ...SIGNING_KEY, d: undefined })]) {
      const result = readHostSettings({ SCIMKIT_OAUTH_SIGNING_KEY: value });
      expect(result.ok, value).toBe(false);
      const errors = result.ok ? [] : result.errors;
      expect(errors, value).toHaveLength(1);
      expect(errors[0], value).toMatch(/^SCIMKIT_OAUTH_SIGNING_KEY: expected a private JWK as JSON; generate one with/);
      expect(errors[0], value).not.toContain(value);
    }
  });

  describe("regions (issue 30)", () => {
    const REGIONS = "us=https://scim.example.com/,eu=https://scim.eu.example.com";
    it("reads the region, every region's URL, the key and the interval; the public URL is the region's", () => {
      const read = settings({
        SCIMKIT_REGION: "eu",
        SCIMKIT_REGIONS: REGIONS,
        SCIMKIT_REGION_KEY: TOKEN,
        SCIMKIT_REGION_SYNC_SECONDS: "5",
        SCIMKIT_REGION_MOVE_STEP_MS: "250",
      });
      expect(read.regions).toEqual({
        self: "eu",
        baseUrls: { us: "https://scim.example.com", eu: "https://scim.eu.example.com" },
        key: TOKEN,
        syncMs: 5000,
        moveStepMs: 250,
      });
      expect(read.publicUrl).toBe("https://scim.eu.example.com");
      // A region alone needs no key: there is nobody to read or be read by.
      expect(settings({ SCIMKIT_REGION: "us", SCIMKIT_REGIONS: "us=https://scim.example.com" }).regions).toMatchObject({
        self: "us",
        key: undefined,
        syncMs: 30_000,
        moveStepMs: 0,
      });
    });

    it("reports each mistake, naming the variable and never the key", () => {
      const short = "short-key";
      const cases: readonly [Record<string, string>, RegExp][] = [
        [{ SCIMKIT_REGIONS: REGIONS }, /^SCIMKIT_REGIONS and SCIMKIT_REGION_KEY need SCIMKIT_REGION/],
        [{ SCIMKIT_REGION: "US", SCIMKIT_REGIONS: REGIONS, SCIMKIT_REGION_KEY: TOKEN }, /^SCIMKIT_REGION="US": expected a region name/],
        [{ SCIMKIT_REGION: "us" }, /^SCIMKIT_REGIONS: needed with SCIMKIT_REGION=us/],
        [
          { SCIMKIT_REGION: "us", SCIMKIT_REGIONS: "us=ftp://x,eu=https://y", SCIMKIT_REGION_KEY: TOKEN },
          /^SCIMKIT_REGIONS=.*: expected region=URL pairs/,
        ],
        [
          { SCIMKIT_REGION: "us", SCIMKIT_REGIONS: "us=https://a,us=https://b", SCIMKIT_REGION_KEY: TOKEN },
          /^SCIMKIT_REGIONS=.*each region once/,
        ],
        [{ SCIMKIT_REGION: "ap", SCIMKIT_REGIONS: REGIONS, SCIMKIT_REGION_KEY: TOKEN }, /does not name this host's region "ap"/],
        [{ SCIMKIT_REGION: "us", SCIMKIT_REGIONS: REGIONS, SCIMKIT_REGION_KEY: short }, /^SCIMKIT_REGION_KEY: expected at least/],
        [{ SCIMKIT_REGION: "us", SCIMKIT_REGIONS: REGIONS }, /^SCIMKIT_REGION_KEY: expected at least/],
        [
          { SCIMKIT_REGION: "us", SCIMKIT_REGIONS: REGIONS, SCIMKIT_REGION_KEY: TOKEN, SCIMKIT_PUBLIC_URL: "https://other.example.com" },
          /differs from region us's URL/,
        ],
      ];
      for (const [env, expected] of cases) {
        const found = errors(env);
        expect(found, JSON.stringify(env)).toHaveLength(1);
        expect(found[0], JSON.stringify(env)).toMatch(expected);
        expect(found[0]).not.toContain(short);
      }
    });
  });
});
