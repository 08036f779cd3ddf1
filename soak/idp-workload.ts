/**
 * The soak run's traffic: what an identity provider's provisioning sends over a day, compressed —
 * userName lookups before a create, creates, `active` flips, group member adds and removes,
 * deletes, and list pages — at a steady request rate. Each worker owns its users, so no two
 * workers race on one user and every non-2xx answer is an error of the server.
 */
import type { LatencyRecorder } from "./latency-recorder.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** One organization of the host, as the workload reaches it. */
export interface SoakOrganization {
  readonly base: string;
  readonly token: string;
}

export interface IdpWorkloadOptions {
  readonly organizations: readonly SoakOrganization[];
  /** Requests per second over all organizations. */
  readonly requestsPerSecond: number;
  readonly workersPerOrganization: number;
  /** Users per organization the churn hovers around: creates outweigh deletes below it, and the reverse above. */
  readonly population: number;
  readonly groupsPerOrganization: number;
  readonly random: () => number;
  readonly latencies: LatencyRecorder;
  /** The first few unexpected answers, for the report. */
  readonly onError: (description: string) => void;
}

export interface IdpWorkload {
  /** Users alive now over all organizations. */
  liveUsers(): number;
  /** Stops after the requests in flight and resolves when every worker has. */
  stop(): Promise<void>;
}

interface OwnUser {
  readonly id: string;
  readonly userName: string;
  active: boolean;
  /** Groups it was added to and not removed from. */
  readonly groups: Set<string>;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates each organization's groups, then runs the workers until `stop()`.
 *
 * @example const workload = await startIdpWorkload({ organizations, requestsPerSecond: 200, … });
 */
export async function startIdpWorkload(options: IdpWorkloadOptions): Promise<IdpWorkload> {
  const { random, latencies } = options;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let stopped = false;
  let live = 0;
  let serial = 0;

  // One slot every 1/rate s for all workers: a steady rate, not a burst each time a worker frees up.
  const interval = 1000 / options.requestsPerSecond;
  let nextSlot = performance.now();
  const paced = async (): Promise<void> => {
    const now = performance.now();
    // A server fallen behind does not earn a burst of catch-up requests when it recovers.
    nextSlot = Math.max(nextSlot + interval, now - interval);
    const wait = nextSlot - now;
    if (wait > 0) await pause(wait);
  };

  const send = async (
    organization: SoakOrganization,
    operation: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ ok: boolean; status: number; json: unknown }> => {
    await paced();
    const started = performance.now();
    let status = 0;
    let text = "";
    try {
      const response = await fetch(`${organization.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${organization.token}`, "Content-Type": "application/scim+json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      text = error instanceof Error ? error.message : String(error);
    }
    const ok = status >= 200 && status < 300;
    latencies.record(operation, performance.now() - started, ok);
    if (!ok) options.onError(`${operation}: ${method} ${path.split("?")[0]} → ${status || "no answer"} ${text.slice(0, 200)}`);
    let json: unknown;
    try {
      json = ok && text !== "" ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { ok, status, json };
  };

  const groupsOf = new Map<SoakOrganization, string[]>();
  for (const [index, organization] of options.organizations.entries()) {
    const groups: string[] = [];
    for (let g = 0; g < options.groupsPerOrganization; g += 1) {
      const created = await send(organization, "createGroup", "POST", "/Groups", {
        schemas: [GROUP_SCHEMA],
        displayName: `Soak ${index} team ${g} ${Date.now()}`,
      });
      if (!created.ok) throw new Error(`could not create the soak groups of ${organization.base}`);
      groups.push((created.json as { id: string }).id);
    }
    groupsOf.set(organization, groups);
  }

  const worker = async (organization: SoakOrganization, share: number): Promise<void> => {
    const groups = groupsOf.get(organization) as string[];
    const users: OwnUser[] = [];
    while (!stopped) {
      const belowTarget = users.length < share;
      // Weights: an IdP reads far more than it writes, and its writes are mostly attribute changes.
      const weights: readonly (readonly [string, number])[] = [
        ["create", belowTarget ? 22 : 6],
        ["lookup", 25],
        ["patchActive", users.length > 0 ? 15 : 0],
        ["addMember", users.length > 0 ? 12 : 0],
        ["removeMember", users.some((user) => user.groups.size > 0) ? 8 : 0],
        ["delete", users.length > 0 ? (belowTarget ? 3 : 22) : 0],
        ["listUsers", 6],
        ["listGroups", 2],
      ];
      const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = random() * total;
      const operation = (weights.find(([, weight]) => (roll -= weight) < 0) ?? weights[0])?.[0] as string;

      switch (operation) {
        case "create": {
          const userName = `soak-${process.pid}-${(serial += 1)}@example.com`;
          // An IdP looks the userName up first, then creates.
          await send(organization, "lookup", "GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
          const created = await send(organization, "create", "POST", "/Users", {
            schemas: [USER_SCHEMA],
            userName,
            externalId: `ext-${serial}`,
            name: { givenName: "Soak", familyName: `User ${serial}` },
            displayName: `Soak User ${serial}`,
            emails: [{ value: userName, type: "work", primary: true }],
            active: true,
          });
          if (created.ok) {
            users.push({ id: (created.json as { id: string }).id, userName, active: true, groups: new Set() });
            live += 1;
          }
          break;
        }
        case "lookup": {
          const user = users.length > 0 && random() < 0.8 ? pick(users) : undefined;
          const userName = user?.userName ?? `absent-${Math.floor(random() * 1e9)}@example.com`;
          await send(organization, "lookup", "GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
          break;
        }
        case "patchActive": {
          const user = pick(users);
          const answer = await send(organization, "patchActive", "PATCH", `/Users/${user.id}`, {
            schemas: [PATCH_SCHEMA],
            Operations: [{ op: "replace", path: "active", value: !user.active }],
          });
          if (answer.ok) user.active = !user.active;
          break;
        }
        case "addMember": {
          const user = pick(users);
          const group = pick(groups);
          const answer = await send(organization, "addMember", "PATCH", `/Groups/${group}`, {
            schemas: [PATCH_SCHEMA],
            Operations: [{ op: "add", path: "members", value: [{ value: user.id }] }],
          });
          if (answer.ok) user.groups.add(group);
          break;
        }
        case "removeMember": {
          const user = pick(users.filter((each) => each.groups.size > 0));
          const group = pick([...user.groups]);
          const answer = await send(organization, "removeMember", "PATCH", `/Groups/${group}`, {
            schemas: [PATCH_SCHEMA],
            Operations: [{ op: "remove", path: `members[value eq "${user.id}"]` }],
          });
          if (answer.ok) user.groups.delete(group);
          break;
        }
        case "delete": {
          const index = Math.floor(random() * users.length);
          const user = users[index] as OwnUser;
          const answer = await send(organization, "delete", "DELETE", `/Users/${user.id}`);
          if (answer.ok) {
            users.splice(index, 1);
            live -= 1;
          }
          break;
        }
        case "listUsers": {
          const startIndex = 1 + Math.floor(random() * Math.max(1, options.population - 100));
          await send(organization, "listUsers", "GET", `/Users?startIndex=${startIndex}&count=100`);
          break;
        }
        default: {
          await send(organization, "listGroups", "GET", "/Groups?count=20&excludedAttributes=members");
          break;
        }
      }
    }
  };

  const share = Math.ceil(options.population / options.workersPerOrganization);
  const running = Promise.all(
    options.organizations.flatMap((organization) =>
      Array.from({ length: options.workersPerOrganization }, () => worker(organization, share)),
    ),
  );
  return {
    liveUsers: () => live,
    async stop() {
      stopped = true;
      await running;
    },
  };
}
