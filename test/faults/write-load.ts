/**
 * The write load of the fault tests: workers that create users, add each to a group and delete
 * some, as an identity provider's sync does, keeping a record of what the server acknowledged
 * (a 2xx answer), so that after a fault the test can check that every acknowledged write is
 * there and nothing points at a user that is gone.
 */
import { expect } from "vitest";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** Where the load goes; `base` may change between calls (a restarted host has a new port). */
export interface LoadTarget {
  readonly base: () => string;
  readonly token: string;
}

/** One answer (or a failed fetch, status 0) with when it came and how long it took. */
export interface Answer {
  readonly status: number;
  /** Milliseconds since the load started. */
  readonly at: number;
  readonly ms: number;
  readonly retryAfter: string | null;
  /** The body of a 5xx, kept to check its shape. */
  readonly body?: unknown;
}

/** What the server acknowledged, and every answer. */
export interface LoadRecord {
  readonly answers: Answer[];
  /** userName → id of each 201 to a create. */
  readonly created: Map<string, string>;
  /** userNames whose create got no 2xx (an error, or no answer): they may or may not exist. */
  readonly unacknowledgedCreates: Set<string>;
  /** `groupId userId` of each 204 to a member add. */
  readonly addedMembers: Set<string>;
  readonly deleted: Set<string>;
  /** Ids whose delete got no 2xx. */
  readonly unacknowledgedDeletes: Set<string>;
}

export interface WriteLoad {
  readonly record: LoadRecord;
  /** `performance.now()` when the load started: `Answer.at` counts from it. */
  readonly startedAt: number;
  /** Stops the workers after their current request and resolves with the record. */
  stop(): Promise<LoadRecord>;
}

function headers(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" };
}

/** Creates `count` groups and answers their ids. */
export async function createGroups(target: LoadTarget, prefix: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${target.base()}/Groups`, {
      method: "POST",
      headers: headers(target.token),
      body: JSON.stringify({ schemas: [GROUP_SCHEMA], displayName: `${prefix} group ${index}` }),
    });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `workers` loops, each: create a user, add it to one of `groups`, and delete every
 * `deleteEvery`-th user again. A failed fetch (the host is gone), a 503 or a 429 pauses the
 * worker for `pauseMs` before its next request, as a client backing off would.
 */
export function startWriteLoad(
  target: LoadTarget,
  options: {
    readonly prefix: string;
    readonly groups: readonly string[];
    readonly workers: number;
    readonly deleteEvery?: number;
    readonly pauseMs?: number;
  },
): WriteLoad {
  const record: LoadRecord = {
    answers: [],
    created: new Map(),
    unacknowledgedCreates: new Set(),
    addedMembers: new Set(),
    deleted: new Set(),
    unacknowledgedDeletes: new Set(),
  };
  const started = performance.now();
  const deleteEvery = options.deleteEvery ?? 5;
  const pauseMs = options.pauseMs ?? 25;
  let next = 0;
  let stopped = false;

  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const begun = performance.now();
    try {
      const response = await fetch(`${target.base()}${path}`, {
        method,
        headers: headers(target.token),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const json: unknown = text === "" ? undefined : JSON.parse(text);
      record.answers.push({
        status: response.status,
        at: begun - started,
        ms: performance.now() - begun,
        retryAfter: response.headers.get("retry-after"),
        ...(response.status >= 500 ? { body: json } : {}),
      });
      // Backing off as a client told to retry later would (a 503 here, or the host's 429).
      if (response.status === 503 || response.status === 429) await pause(pauseMs);
      return { status: response.status, json };
    } catch {
      record.answers.push({ status: 0, at: begun - started, ms: performance.now() - begun, retryAfter: null });
      await pause(pauseMs);
      return { status: 0, json: undefined };
    }
  };

  const worker = async (): Promise<void> => {
    while (!stopped) {
      const n = next++;
      const userName = `${options.prefix}-${n}@example.com`;
      const created = await send("POST", "/Users", {
        schemas: [USER_SCHEMA],
        userName,
        name: { givenName: "Load", familyName: String(n) },
        emails: [{ value: userName, type: "work", primary: true }],
        active: true,
      });
      if (created.status !== 201) {
        record.unacknowledgedCreates.add(userName);
        continue;
      }
      const id = (created.json as { id: string }).id;
      record.created.set(userName, id);
      const groupId = options.groups[n % options.groups.length] as string;
      const added = await send("PATCH", `/Groups/${groupId}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "add", path: "members", value: [{ value: id }] }],
      });
      if (added.status === 204 || added.status === 200) record.addedMembers.add(`${groupId} ${id}`);
      if (n % deleteEvery === 0) {
        const removed = await send("DELETE", `/Users/${id}`);
        if (removed.status === 204) record.deleted.add(id);
        else record.unacknowledgedDeletes.add(id);
      }
    }
  };

  const running = Promise.all(Array.from({ length: options.workers }, worker));
  return {
    record,
    startedAt: started,
    async stop() {
      stopped = true;
      await running;
      return record;
    },
  };
}

/** What `verifyAcknowledged` checked, for the reliability figures. */
export interface Verified {
  readonly usersPresent: number;
  readonly usersDeleted: number;
  readonly members: number;
  /** Creates without an acknowledgement that were nonetheless written (their answer was lost). */
  readonly unacknowledgedButWritten: number;
}

/**
 * Checks over HTTP that every acknowledged write is there — each created user not deleted since,
 * each member add whose user still exists — that every acknowledged delete took, that no group
 * lists a member that does not exist, and that a create without an acknowledgement left either
 * the whole user or nothing (one user at most under its userName). Reads every user in pages, so
 * it costs a handful of requests whatever the load wrote.
 */
export async function verifyAcknowledged(target: LoadTarget, record: LoadRecord, groups: readonly string[]): Promise<Verified> {
  const get = async (path: string): Promise<unknown> => {
    for (;;) {
      const response = await fetch(`${target.base()}${path}`, { headers: headers(target.token) });
      // The host's rate limit: wait as told.
      if (response.status === 429) {
        await pause(Number(response.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      expect(response.status, `GET ${path}`).toBe(200);
      return response.json();
    }
  };
  const users = new Map<string, string[]>();
  for (let startIndex = 1; ; startIndex += 500) {
    const page = (await get(`/Users?startIndex=${startIndex}&count=500&attributes=userName`)) as {
      totalResults: number;
      Resources?: { id: string; userName: string }[];
    };
    for (const user of page.Resources ?? []) users.set(user.userName, [...(users.get(user.userName) ?? []), user.id]);
    if (startIndex + 500 > page.totalResults || (page.Resources ?? []).length === 0) break;
  }
  const ids = new Set([...users.values()].flat());
  for (const [userName, holders] of users) expect(holders, `users named ${userName}`).toHaveLength(1);

  const alive = [...record.created.entries()].filter(([, id]) => !record.deleted.has(id) && !record.unacknowledgedDeletes.has(id));
  for (const [userName, id] of alive) expect(users.get(userName), `acknowledged user ${userName}`).toEqual([id]);
  for (const id of record.deleted) expect(ids.has(id), `acknowledged delete of ${id}`).toBe(false);
  const unacknowledgedButWritten = [...record.unacknowledgedCreates].filter((userName) => users.has(userName)).length;

  let members = 0;
  for (const groupId of groups) {
    const group = (await get(`/Groups/${groupId}`)) as { members?: { value: string }[] };
    const values = new Set((group.members ?? []).map((member) => member.value));
    members += values.size;
    for (const key of record.addedMembers) {
      const [groupOfAdd, user] = key.split(" ") as [string, string];
      if (groupOfAdd !== groupId || record.deleted.has(user) || record.unacknowledgedDeletes.has(user)) continue;
      expect(values.has(user), `acknowledged member ${user} of ${groupId}`).toBe(true);
    }
    for (const user of values) expect(ids.has(user), `member ${user} of ${groupId} exists`).toBe(true);
  }
  return { usersPresent: alive.length, usersDeleted: record.deleted.size, members, unacknowledgedButWritten };
}
