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
