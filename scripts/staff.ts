// `npm run staff -- <command>`: staff accounts from a shell, for the first admin of a new install and for the day
// nobody can sign in as an admin any more. Changes are audited like the Staff page's, with the OS user as the actor.
import path from "node:path";
import { ROLE_LABELS } from "../lib/auth/roles";
import { DataDirInUseError, type Database, createDatabase } from "../lib/db/client";
import { databaseErrorOf } from "../lib/db/errors";
import { ConfigError, parseStorageEnv } from "../lib/env";
import { StaffAccountRefused, addStaffAccount, listStaff, setStaffDisabled, setStaffRole } from "../lib/staff/manage";
import { type Command, USAGE, UsageError, isUsageError, parseCommand } from "./staff-command";

/** Exit codes: 1 when the command ran but failed or was refused, 2 when it was not understood. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    // Typed at a terminal, the password would be echoed on screen and kept in its scrollback.
    throw new UsageError(
      '--password-stdin reads a piped password, e.g. printf %s "$PASSWORD" | npm run staff -- add ... --password-stdin',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  // `echo` adds one line ending; anything else belongs to the password.
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function run(
  command: Exclude<Command, { name: "help" }>,
  database: Database,
  password: string | undefined,
): Promise<void> {
  const { db } = database;
  switch (command.name) {
    case "add": {
      const added = await addStaffAccount(db, {
        email: command.email,
        name: command.accountName,
        role: command.role,
        password,
      });
      console.log(`Added ${added.email} as ${command.role}.`);
      if (password === undefined) {
        console.log(
          `One-time password (copy it now: it will not be shown again; at first sign-in they choose their own):\n\n  ${added.password}\n`,
        );
      } else {
        console.log(
          "It signs in with the password read from standard input, once: at first sign-in they choose their own.",
        );
      }
      return;
    }
    case "disable":
    case "enable": {
      const disable = command.name === "disable";
      const result = await setStaffDisabled(db, command.email, disable);
      if (!result.changed) console.log(`${result.email} was already ${disable ? "disabled" : "enabled"}.`);
      else
        console.log(
          disable
            ? `Disabled ${result.email}; their open sessions end at their next request.`
            : `Enabled ${result.email}.`,
        );
      return;
    }
    case "set-role": {
      const result = await setStaffRole(db, command.email, command.role);
      console.log(
        result.previousRole === result.role
          ? `${result.email} already has the role ${ROLE_LABELS[result.role]}.`
          : `${result.email}: ${ROLE_LABELS[result.previousRole]} → ${ROLE_LABELS[result.role]}.`,
      );
      return;
    }
    case "list": {
      const accounts = await listStaff(db);
      if (accounts.length === 0) {
        console.log("No staff accounts yet. Add the first admin with: npm run staff -- add --email E --role admin");
        return;
      }
      const rows = [
        ["EMAIL", "NAME", "ROLE", "SIGN-IN", "STATUS", "CREATED (UTC)"],
        ...accounts.map((a) => [
          a.email,
          a.name ?? "-",
          a.role,
          a.authSource,
          a.disabledAt ? "disabled" : "active",
          a.createdAt.toISOString().slice(0, 16).replace("T", " "),
        ]),
      ];
      const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
      for (const row of rows)
        console.log(
          row
            .map((cell, column) => cell.padEnd(widths[column]!))
            .join("  ")
            .trimEnd(),
        );
      return;
    }
  }
}

/** The database's own words: drizzle's wrapper quotes the query and its parameters (a password hash), so not that one. */
function describeFailure(error: unknown): string {
  const fromDatabase = databaseErrorOf(error);
  if (fromDatabase) return fromDatabase.message;
  let innermost = error;
  while (innermost instanceof Error && innermost.cause instanceof Error) innermost = innermost.cause;
  return innermost instanceof Error ? innermost.message : String(innermost);
}

/** PGlite's data folder lock (lib/db/client.ts) names the live process that holds it. */
const isHeldByAnotherProcess = (error: unknown) =>
  error instanceof DataDirInUseError && error.holderPid !== process.pid;

async function main(argv: string[]): Promise<number> {
  let command: Command;
  let password: string | undefined;
  try {
    command = parseCommand(argv);
    if (command.name === "help") {
      console.log(USAGE);
      return EXIT.ok;
    }
    // Read before opening the database, so a slow pipe does not hold the embedded database's lock.
    if (command.name === "add" && command.passwordFromStdin) password = await readPasswordFromStdin();
  } catch (error) {
    if (isUsageError(error)) {
      console.error(`${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    throw error;
  }

  let storage;
  try {
    storage = parseStorageEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return EXIT.failed;
    }
    throw error;
  }

  const dataDir = path.resolve(storage.LINKDESK_DATA_DIR, "pglite");
  let database: Database;
  try {
    database = await createDatabase({ url: storage.DATABASE_URL, dataDir });
  } catch (error) {
    if (!storage.DATABASE_URL && isHeldByAnotherProcess(error)) {
      console.error(
        `The embedded database in ${dataDir} is open in another process, most likely the running dashboard ` +
          "(it allows one process at a time). Use the dashboard's Staff page (/admin/staff), or stop the dashboard first and run this again.",
      );
      return EXIT.failed;
    }
    console.error(`Could not open the database: ${describeFailure(error)}`);
    return EXIT.failed;
  }

  // Ctrl-C while the database is open: close it first, or PGlite's sequences jump at the next start.
  const interrupted = (signal: NodeJS.Signals) => {
    void database.close().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    await run(command, database, password);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof StaffAccountRefused) {
      console.error(error.outcome === "invalid" ? `${error.message}\n\n${USAGE}` : error.message);
      return error.outcome === "invalid" ? EXIT.usage : EXIT.failed;
    }
    console.error(`Failed: ${describeFailure(error)}`);
    return EXIT.failed;
  } finally {
    await database.close();
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

process.exitCode = await main(process.argv.slice(2));
