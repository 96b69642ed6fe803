// What `npm run staff -- <command>` was asked to do (scripts/staff.ts), read from its arguments before anything is
// opened: a command, or a usage error that exits 2 with the usage printed.
import { parseArgs } from "node:util";
import { ROLES } from "../lib/auth/roles";

export const USAGE = `Usage: npm run staff -- <command> [options]

Commands:
  add --email E --role R [--name N] [--password-stdin]
                          Create a password account. Prints a generated one-time password,
                          or uses the password piped to standard input with --password-stdin.
                          Either serves once: at first sign-in its owner chooses their own.
  disable --email E       Block an account from signing in (its open sessions end too).
  enable --email E        Let a disabled account sign in again.
  set-role --email E --role R
                          Change an account's role.
  list                    Every account, by email.

Roles: ${ROLES.join(", ")}.
Database: DATABASE_URL when set, else the embedded one in \${LINKDESK_DATA_DIR:-.data}/pglite.
The embedded database allows one process at a time: while the dashboard runs, use its Staff page.`;

export class UsageError extends Error {}

export type Command =
  | { name: "add"; email: string; role: string; accountName?: string; passwordFromStdin: boolean }
  | { name: "disable" | "enable"; email: string }
  | { name: "set-role"; email: string; role: string }
  | { name: "list" }
  | { name: "help" };

export function parseCommand(argv: string[]): Command {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError("No command given.");
  if (name === "help" || name === "--help" || name === "-h") return { name: "help" };
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      role: { type: "string" },
      name: { type: "string" },
      "password-stdin": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return { name: "help" };
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const allowed: Record<string, readonly string[]> = {
    add: ["email", "role", "name", "password-stdin"],
    disable: ["email"],
    enable: ["email"],
    "set-role": ["email", "role"],
    list: [],
  };
  const options = allowed[name];
  if (!options) throw new UsageError(`Unknown command: ${name}`);
  const extra = Object.keys(values).find((option) => !options.includes(option));
  if (extra) throw new UsageError(`${name} takes no --${extra}`);
  const required = (option: "email" | "role") => {
    const value = values[option];
    if (value === undefined) throw new UsageError(`${name} needs --${option}`);
    return value;
  };
  switch (name) {
    case "add":
      return {
        name,
        email: required("email"),
        role: required("role"),
        accountName: values.name,
        passwordFromStdin: values["password-stdin"] ?? false,
      };
    case "disable":
    case "enable":
      return { name, email: required("email") };
    case "set-role":
      return { name, email: required("email"), role: required("role") };
    default:
      return { name: "list" };
  }
}

/** The arguments were not understood: a command's own check, or node's parseArgs (an unknown option, a missing value). */
export function isUsageError(error: unknown): boolean {
  return (
    error instanceof UsageError || Boolean((error as NodeJS.ErrnoException | null)?.code?.startsWith("ERR_PARSE_ARGS_"))
  );
}
