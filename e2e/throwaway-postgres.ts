import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// A PostgreSQL cluster of the test's own, in a temporary folder on a port of its own, that the test may stop and start
// (the machine's server is shared with other people and must never be stopped). Built from the server binaries of the
// Debian packages (/usr/lib/postgresql/<version>/bin, or PG_BIN_DIR). initdb refuses to run as root, so as root every
// command runs as the `postgres` user, who owns the folder.

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  stop(): void;
  start(): void;
  /** Stops the server (if running) and deletes its folder. */
  destroy(): void;
}

function binDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl")))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) {
    throw new Error(
      `No PostgreSQL server binaries under ${root}: apt-get install -y postgresql (or set PG_BIN_DIR to the folder holding initdb and pg_ctl).`,
    );
  }
  return path.join(root, newest, "bin");
}

export function createThrowawayPostgres({ port }: { port: number }): ThrowawayPostgres {
  const bin = binDir();
  const folder = mkdtempSync(path.join(tmpdir(), "linkdesk-pg-"));
  const dataDir = path.join(folder, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid))
      throw new Error("Running as root, the throwaway PostgreSQL needs a `postgres` user to run as.");
    chownSync(folder, uid, gid);
  }

  const run = (program: string, args: string[]) => {
    const result = asRoot
      ? spawnSync("runuser", ["-u", "postgres", "--", path.join(bin, program), ...args], {
          encoding: "utf8",
          timeout: 60_000,
        })
      : spawnSync(path.join(bin, program), args, { encoding: "utf8", timeout: 60_000 });
    if (result.status !== 0)
      throw new Error(
        `${program} ${args.join(" ")} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`,
      );
  };

  let running = false;
  const start = () => {
    // Unix socket in the folder, TCP on 127.0.0.1 only; fsync off: nothing here needs to survive a power cut.
    const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`;
    run("pg_ctl", ["-D", dataDir, "-o", options, "-l", path.join(folder, "server.log"), "-w", "-t", "30", "start"]);
    running = true;
  };
  const stop = () => {
    // fast: sessions are ended at once, as on a server restart.
    run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "-t", "30", "stop"]);
    running = false;
  };

  try {
    run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"]);
    start();
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy() {
      try {
        if (running) stop();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
