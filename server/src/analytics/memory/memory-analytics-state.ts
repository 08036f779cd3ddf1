/**
 * What the memory analytics store holds: its maps, one per kind of record, and the services it
 * reads and clears SCIM data through. Every area of the store (`memoryOrganizations`,
 * `memoryAdminUsers`, …) is a set of functions over this one object, so a record an area writes
 * is the record another reads — an organization delete reaches every map.
 */
import type { SetupLink } from "../setup-link-store.js";
import type { TokenStore } from "scimkit";
import { eventLoopSlice, type EventLoopSlice, type ResourceStore } from "scimkit/store";
import type {
  AdminUser,
  AttackSimulation,
  Campaign,
  Enrolment,
  FeedbackComment,
  Operation,
  Organization,
  RegionDirectoryEntry,
  ReportRow,
  SimulationRecipient,
  StoredApiKey,
} from "../analytics-store.js";
import type { MemoryAnalyticsStoreOptions } from "./memory-analytics-store.js";

/** A record with the organization it belongs to, so an organization delete finds it. */
export interface Owned<T> {
  /** The organization of the record. */
  readonly orgId: string;
  /** The record, the store's own copy. */
  readonly value: T;
}

/**
 * A pending invitation offer (issue 27): an invitation whose e-mail is an admin user's the inviter
 * may not see, shown as the `invited` admin user `entry` until it is accepted or withdrawn.
 */
export interface PendingOffer {
  /** The offer as an `invited` admin user. */
  readonly entry: AdminUser;
  /** The admin user whose grants bound the offer's; undefined: the operator. */
  readonly offeredBy: string | undefined;
  /** The digest of its invitation code. */
  readonly codeHash: string;
}

/** The maps and services of one memory analytics store. */
export interface MemoryAnalyticsState {
  /** The SCIM resources: learners and the directory are read from them. */
  readonly resources: ResourceStore;
  /** The SCIM tokens, revoked with their organization. */
  readonly tokens: Pick<TokenStore, "revokeAll">;
  /** The clock of the writes without a time of their own. */
  readonly now: () => Date;
  /** A new slice clock for a long read. */
  readonly newSlice: () => EventLoopSlice;
  /** Organizations by id; written only through `putOrganization`, which keeps `children` fresh. */
  readonly organizations: Map<string, Organization>;
  /** Each parent's children, built on first use after a change of the tree; undefined when stale. */
  children: Map<string, string[]> | undefined;
  /** Admin users by id. */
  readonly adminUsers: Map<string, AdminUser>;
  /** Admin user ids by lower-cased e-mail. */
  readonly adminIdByEmail: Map<string, string>;
  /** Pending invitations by code digest. */
  readonly invitations: Map<string, { readonly adminUserId: string; readonly expiresAt: string }>;
  /** Pending invitation offers by id. */
  readonly offers: Map<string, PendingOffer>;
  /** The ids of pending invitation offers by code digest. */
  readonly offerIdByCode: Map<string, string>;
  /** API keys by digest. */
  readonly apiKeys: Map<string, StoredApiKey>;
  /** Campaigns by id. */
  readonly campaigns: Map<string, Campaign>;
  /** campaign id → user id → enrolment. */
  readonly enrolments: Map<string, Map<string, Owned<Enrolment>>>;
  /** Simulations by id. */
  readonly simulations: Map<string, AttackSimulation>;
  /** simulation id → user id → recipient. */
  readonly recipients: Map<string, Map<string, Owned<SimulationRecipient>>>;
  /** `"<kind>:<id>"` of the subject → comment id → comment. */
  readonly feedback: Map<string, Map<string, Owned<FeedbackComment>>>;
  /** Operations by id. */
  readonly operations: Map<string, Operation>;
  /** Report rows by operation id, in order. */
  readonly reportRows: Map<string, ReportRow[]>;
  /**
   * The replica of other regions' directories by organization id, every region's in one map as
   * ids are unique across them; apart from `organizations`, so no organization delete reaches it.
   */
  readonly regionDirectory: Map<string, RegionDirectoryEntry>;
  /** Setup links by id, with the digests of their code and session (issue 31). */
  readonly setupLinks: Map<string, MemorySetupLink>;
}

/** A setup link as the memory store keeps it: the link and the digests it is found by. */
export interface MemorySetupLink {
  link: SetupLink;
  readonly codeHash: string;
  sessionHash?: string;
}

/** An empty store's state over `options`' services, defaults applied. */
export function memoryAnalyticsState(options: MemoryAnalyticsStoreOptions): MemoryAnalyticsState {
  return {
    resources: options.resources,
    tokens: options.tokens,
    now: options.now ?? (() => new Date()),
    newSlice: options.eventLoopSlice ?? (() => eventLoopSlice()),
    organizations: new Map(),
    children: undefined,
    adminUsers: new Map(),
    adminIdByEmail: new Map(),
    invitations: new Map(),
    offers: new Map(),
    offerIdByCode: new Map(),
    apiKeys: new Map(),
    campaigns: new Map(),
    enrolments: new Map(),
    simulations: new Map(),
    recipients: new Map(),
    feedback: new Map(),
    operations: new Map(),
    reportRows: new Map(),
    regionDirectory: new Map(),
    setupLinks: new Map(),
  };
}
