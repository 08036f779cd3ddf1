/**
 * A PostgreSQL server of a test's own — initdb into a temporary directory, pg_ctl on a free port —
 * which the test may stop and start as it likes, as an operator restarting the database would.
 * The shared test server cannot be stopped under the other test files. Where the binaries are
 * missing, or the tests run as root with no `postgres` user to run them as, it says why not.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A running (or stopped) server of the test's own. */
export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:{port}/postgres`, trust authentication. */
  readonly url: string;
  readonly port: number;
  /** Stops the server: `immediate` kills it as a crash would (recovery on the next start), `fast` shuts it down cleanly. */
  stop(mode?: "immediate" | "fast"): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its directory. */
  remove(): Promise<void>;
}

/** A port nobody listens on at the moment of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function binDirectory(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((version) => existsSync(join(root, version, "bin", "pg_ctl")));
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(root, newest, "bin");
}

async function uidOf(user: string): Promise<number | undefined> {
  try {
    const { stdout } = await run("id", ["-u", user]);
    return Number(stdout.trim());
  } catch {
    return undefined;
  }
}

/**
 * Creates and starts a server, or answers why it cannot: initdb refuses to run as root, so as
 * root it runs the binaries as the `postgres` user (runuser).
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres | string> {
  const bin = binDirectory();
  if (bin === undefined) return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin";
  const asRoot = process.getuid?.() === 0;
  const postgresUid = asRoot ? await uidOf("postgres") : undefined;
  if (asRoot && postgresUid === undefined) return "the tests run as root and there is no postgres user to run initdb as";
  const directory = mkdtempSync(join(tmpdir(), "scimkit-pg-"));
  if (asRoot && postgresUid !== undefined) chownSync(directory, postgresUid, postgresUid);
  const tool = (name: string, args: readonly string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, name), ...args]) : run(join(bin, name), [...args]);
  const data = join(directory, "data");
  const port = await freePort();
  // fsync off: the faults here are process deaths, which the operating system's cache survives.
  const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const start = async (): Promise<void> => {
    await tool("pg_ctl", ["-D", data, "-o", serverOptions, "-l", join(directory, "log"), "-w", "-t", "30", "start"]);
  };
  const stop = async (mode: "immediate" | "fast" = "fast"): Promise<void> => {
    await tool("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]);
  };
  try {
    await tool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
    await start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    return `initdb or pg_ctl failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
  let removed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async remove() {
      if (removed) return;
      removed = true;
      await stop("immediate").catch(() => {});
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
