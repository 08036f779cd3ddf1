/**
 * Rotation of the SET signing keys on memory, SQLite (a file two stores share, as two processes
 * would) and PostgreSQL: after a rotation new SETs carry the new `kid` and a SET signed before it
 * still verifies against the JWKS; after the retention the replaced key leaves the JWKS; another
 * process signs with the new key once it reads again; two processes rotating at once leave one
 * signing key.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../store/sql/postgres-test-database.fixture.js";
import { sqlSigningKeyRepository } from "../store/sql/sql-event-receiver-store.js";
import { sqlStore } from "../store/sql/sql-store.js";
import type { SigningKeyRepository } from "./event-receiver-store.js";
import { DEFAULT_KEY_RETENTION_MS, type EventSigningKeys, eventSigningKeys } from "./event-signing-keys.js";
import { memorySigningKeyRepository } from "./memory-event-receiver-store.js";
import { signSecurityEvent } from "./security-event-token.js";

const START = Date.parse("2030-01-01T00:00:00.000Z");

/** Two repositories over one place, as two processes of a deployment see it. */
interface Opened {
  readonly repositories: readonly [SigningKeyRepository, SigningKeyRepository];
  close(): Promise<void>;
}

/** A clock the test moves. */
function clock(): { now: () => number; advance(ms: number): void } {
  let at = START;
  return {
    now: () => at,
    advance(ms) {
      at += ms;
    },
  };
}

async function sign(keys: EventSigningKeys, orgId: string): Promise<string> {
  const claims = { iss: "https://scim.example.com", iat: START / 1000, jti: crypto.randomUUID(), events: {} };
  return signSecurityEvent(claims, await keys.signingKey(orgId));
}

async function verifies(keys: EventSigningKeys, orgId: string, token: string): Promise<boolean> {
  const jwks = createLocalJWKSet({ keys: [...(await keys.jwks(orgId)).keys] });
  return jwtVerify(token, jwks, { typ: "secevent+jwt", algorithms: ["ES256"] }).then(
    () => true,
    () => false,
  );
}

const kidOf = (token: string): unknown => decodeProtectedHeader(token).kid;
const kidsOf = async (keys: EventSigningKeys, orgId: string) => (await keys.jwks(orgId)).keys.map((key) => key.kid);

/** `repository` whose rotations wait until `parties` rotations have begun: they all read the same key. */
function meetingRotations(parties: number): (repository: SigningKeyRepository) => SigningKeyRepository {
  let waiting = 0;
  let release: () => void = () => {};
  const met = new Promise<void>((resolve) => {
    release = resolve;
  });
  return (repository) => ({
    get: (orgId) => repository.get(orgId),
    addIfAbsent: (key) => repository.addIfAbsent(key),
    async replaceIfCurrent(currentKid, next) {
      waiting += 1;
      if (waiting === parties) release();
      await met;
      return repository.replaceIfCurrent(currentKid, next);
    },
  });
}

function rotationChecks(open: () => Promise<Opened>): void {
  it("signs new SETs with the new kid after a rotation; a SET signed before still verifies against the JWKS", async () => {
    const { repositories, close } = await open();
    const time = clock();
    const keys = eventSigningKeys(repositories[0], { now: time.now });
    const before = await sign(keys, "acme");
    time.advance(1000);
    const rotated = await keys.rotate("acme");
    expect(rotated.kid).not.toBe(kidOf(before));
    const after = await sign(keys, "acme");
    expect(kidOf(after)).toBe(rotated.kid);
    expect(await kidsOf(keys, "acme")).toEqual([rotated.kid, kidOf(before)]);
    expect(await verifies(keys, "acme", before)).toBe(true);
    expect(await verifies(keys, "acme", after)).toBe(true);
    // Another organization's keys are its own.
    expect(await kidsOf(keys, "globex")).not.toContain(rotated.kid);
    await close();
  });

  it("drops a replaced key from the JWKS once its retention has passed (7 days by default)", async () => {
    const { repositories, close } = await open();
    const time = clock();
    const keys = eventSigningKeys(repositories[0], { now: time.now });
    const before = await sign(keys, "acme");
    const second = await keys.rotate("acme");
    time.advance(DEFAULT_KEY_RETENTION_MS - 1);
    expect(await kidsOf(keys, "acme")).toEqual([second.kid, kidOf(before)]);
    time.advance(1);
    expect(await kidsOf(keys, "acme")).toEqual([second.kid]);
    expect(await verifies(keys, "acme", before)).toBe(false);
    // The next rotation stores only what is still within retention.
    const third = await keys.rotate("acme");
    expect((await repositories[0].get("acme"))?.retired?.map((key) => key.kid)).toEqual([second.kid]);
    expect(await kidsOf(keys, "acme")).toEqual([third.kid, second.kid]);
    await close();
  });

  it("keeps at most maxRetiredKeys replaced keys (3 by default), however often it is rotated", async () => {
    const { repositories, close } = await open();
    const time = clock();
    const keys = eventSigningKeys(repositories[0], { now: time.now });
    const kids: string[] = [(await keys.signingKey("acme")).kid];
    for (let rotation = 0; rotation < 12; rotation += 1) {
      time.advance(1);
      kids.push((await keys.rotate("acme")).kid);
    }
    // The signing key and the three it replaced last, newest first; nothing more is stored either.
    expect(await kidsOf(keys, "acme")).toEqual(kids.slice(-4).reverse());
    expect((await repositories[0].get("acme"))?.retired).toHaveLength(3);
    const one = eventSigningKeys(repositories[0], { now: time.now, maxRetiredKeys: 1 });
    expect(await kidsOf(one, "acme")).toEqual(kids.slice(-2).reverse());
    await close();
  });

  it("answers an empty JWKS, and makes no key, for an organization without one, whether it exists or not", async () => {
    const { repositories, close } = await open();
    const keys = eventSigningKeys(repositories[0]);
    expect(await keys.jwks("nobody")).toEqual({ keys: [] });
    expect(await repositories[0].get("nobody")).toBeUndefined();
    const kid = (await keys.signingKey("acme")).kid;
    // Another process reads the key the first one made.
    expect(await kidsOf(eventSigningKeys(repositories[1]), "acme")).toEqual([kid]);
    await close();
  });

  it("keeps a replaced key for the configured retention", async () => {
    const { repositories, close } = await open();
    const time = clock();
    const keys = eventSigningKeys(repositories[0], { now: time.now, retentionMs: 60_000 });
    const first = await keys.signingKey("acme");
    await keys.rotate("acme");
    time.advance(59_999);
    expect(await kidsOf(keys, "acme")).toContain(first.kid);
    time.advance(1);
    expect(await kidsOf(keys, "acme")).not.toContain(first.kid);
    await close();
  });

  it("reaches another process when it reads the key again (refreshMs); meanwhile its SETs still verify", async () => {
    const { repositories, close } = await open();
    const time = clock();
    const one = eventSigningKeys(repositories[0], { now: time.now });
    const two = eventSigningKeys(repositories[1], { now: time.now, refreshMs: 60_000 });
    const first = await two.signingKey("acme");
    const rotated = await one.rotate("acme");
    const stale = await sign(two, "acme");
    expect(kidOf(stale)).toBe(first.kid);
    expect(await verifies(one, "acme", stale)).toBe(true);
    time.advance(60_000);
    expect((await two.signingKey("acme")).kid).toBe(rotated.kid);
    expect(await kidsOf(two, "acme")).toEqual([rotated.kid, first.kid]);
    await close();
  });

  it("leaves one signing key when two processes rotate at once", async () => {
    const { repositories, close } = await open();
    const meeting = meetingRotations(2);
    const one = eventSigningKeys(meeting(repositories[0]));
    const two = eventSigningKeys(meeting(repositories[1]));
    const first = await one.signingKey("acme");
    const [a, b] = await Promise.all([one.rotate("acme"), two.rotate("acme")]);
    expect(a.kid).toBe(b.kid);
    expect(a.kid).not.toBe(first.kid);
    const stored = await repositories[1].get("acme");
    expect(stored?.kid).toBe(a.kid);
    expect(stored?.retired?.map((key) => key.kid)).toEqual([first.kid]);
    expect(await kidsOf(one, "acme")).toEqual([a.kid, first.kid]);
    expect(await kidsOf(two, "acme")).toEqual([a.kid, first.kid]);
    await close();
  });

  it("rotating an organization without a key gives it one", async () => {
    const { repositories, close } = await open();
    const keys = eventSigningKeys(repositories[0]);
    const made = await keys.rotate("initech");
    expect((await keys.signingKey("initech")).kid).toBe(made.kid);
    expect((await kidsOf(keys, "initech")).length).toBeGreaterThanOrEqual(1);
    await close();
  });
}

describe("signing key rotation: memory", () => {
  rotationChecks(async () => {
    const repository = memorySigningKeyRepository();
    return { repositories: [repository, repository], close: async () => {} };
  });
});

describe("signing key rotation: SQLite, two stores on one file", () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });
  rotationChecks(async () => {
    const directory = mkdtempSync(join(tmpdir(), "scimkit-keys-"));
    directories.push(directory);
    const file = join(directory, "scim.db");
    const one = await sqlStore({ sqlite: file, threads: false });
    const two = await sqlStore({ sqlite: file, threads: false });
    return {
      repositories: [sqlSigningKeyRepository(one.db), sqlSigningKeyRepository(two.db)],
      close: async () => {
        await one.close();
        await two.close();
      },
    };
  });
});

describePostgres("signing key rotation: PostgreSQL, two stores on one schema", (url) => {
  let schema: TestSchema | undefined;
  afterAll(async () => {
    await schema?.drop();
  });
  rotationChecks(async () => {
    schema ??= await createTestSchema(url);
    const one = await sqlStore({ postgres: schema.pool() });
    const two = await sqlStore({ postgres: schema.pool() });
    // One schema for the file: each test starts from an empty table.
    await one.db.deleteFrom("scimkit_event_keys").execute();
    return {
      repositories: [sqlSigningKeyRepository(one.db), sqlSigningKeyRepository(two.db)],
      close: async () => {
        await one.close();
        await two.close();
      },
    };
  });
});
