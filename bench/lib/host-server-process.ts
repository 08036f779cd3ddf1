/**
 * Starts the real host server (`scimkit serve`, as `npm start` does, from source) on a given port
 * and stops it with SIGTERM, as an orchestrator would. Its output goes to a log file.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface HostServerOptions {
  /** The host's environment (`DATABASE_URL`, `SCIMKIT_WORKERS`, …) over the runner's. */
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly logDir: string;
  readonly logName: string;
  /** The organization whose SCIM base URL marks the host as ready. */
  readonly orgId: string;
  readonly readyTimeoutMs?: number;
}

export interface RunningHostServer {
  /** `http://127.0.0.1:port`. */
  readonly origin: string;
  /** The organization's SCIM base path, e.g. `/scim/Organizations/acme/v2`. */
  readonly scimBase: string;
  /** The primary's process id (with workers, they are its children). */
  readonly pid: number;
  readonly logFile: string;
  exited(): boolean;
  /** SIGTERM, then SIGKILL after 20 s; resolves with the exit code (null when killed). */
  stop(): Promise<number | null>;
}

/** A port free on loopback now: the cluster's workers share the one the primary is given. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}

/**
 * Spawns the host and resolves once its log shows the organization's SCIM base URL (printed after
 * every worker listens). Its output goes straight to the log file, not through the runner: the
 * host logs each request, and the runner, which also drives the load, must not pay for reading them.
 */
export async function startHostServer(options: HostServerOptions): Promise<RunningHostServer> {
  mkdirSync(options.logDir, { recursive: true });
  const logFile = join(options.logDir, `${options.logName}.log`);
  const fd = openSync(logFile, "w");
  const port = await freePort();
  const child = spawn(process.execPath, ["--conditions=scimkit-source", "--import", "tsx", "server/src/host/cli.ts", "serve"], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      exitCode = code;
      resolve(code);
    });
  });
  const marker = new RegExp(`^SCIM base URL for ${options.orgId.replace(/\W/g, "\\$&")}: (\\S+)$`, "m");
  const timeoutMs = options.readyTimeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  let base: string | undefined;
  while (base === undefined) {
    if (exitCode !== undefined) throw new Error(`${options.logName}: exited (${String(exitCode)}) before it was ready (log: ${logFile})`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.logName}: not ready within ${timeoutMs} ms (log: ${logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    base = marker.exec(readFileSync(logFile, "utf8"))?.[1];
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    scimBase: new URL(base).pathname.replace(/\/$/, ""),
    pid: child.pid ?? 0,
    logFile,
    exited: () => exitCode !== undefined,
    async stop() {
      if (exitCode === undefined) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exit;
        clearTimeout(killer);
      }
      return exitCode ?? null;
    },
  };
}
