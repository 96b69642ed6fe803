// The sandbox of the drift suite's sync passes (scripts/bench/drift.ts), in a process of its own: the bench's process
// then holds Linkdesk alone (its client, the sync, the embedded database), so its CPU time per pass is Linkdesk's, and
// the sandbox serves from the other core. Takes createSandbox's options as one JSON argument (a shorter rate-limit
// window, which no SANDBOX_* variable sets), listens on SANDBOX_HOST:SANDBOX_PORT, prints the line
// `sandbox listening on <url>` as sandbox/main.ts does, and exits on SIGTERM or SIGINT. Drift is switched between
// passes through its control routes (POST and DELETE /_sandbox/drift).
// Run: node --import tsx scripts/bench/drift-sandbox.ts '{"links":2000,"rateLimitWindowMs":1000}'
import { type SandboxOverrides, createSandbox } from "../../sandbox/server";

const options = JSON.parse(process.argv[2] ?? "{}") as SandboxOverrides;
const sandbox = createSandbox(options);
const url = await sandbox.listen(Number(process.env.SANDBOX_PORT ?? 0), process.env.SANDBOX_HOST ?? "127.0.0.1");
const stop = () => void sandbox.close().finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
console.log(`sandbox listening on ${url}`);
