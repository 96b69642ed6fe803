// `npm run sandbox`: the sandbox as a program. Prints exactly one line on stdout once it accepts connections
// (`sandbox listening on http://HOST:PORT`; the dashboard's start script waits for it) and exits 0 on SIGINT/SIGTERM.
import { parseSandboxEnv } from "./env";
import { createSandbox } from "./server";

async function main(): Promise<void> {
  const parsed = parseSandboxEnv(process.env);
  if (!parsed.ok) {
    for (const error of parsed.errors) console.error(`sandbox: ${error}`);
    process.exit(1);
  }
  const { host, port, options } = parsed.config;
  const sandbox = createSandbox(options);
  let url: string;
  try {
    url = await sandbox.listen(port, host);
  } catch (error) {
    console.error(
      `sandbox: cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("sandbox: error while closing", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  console.log(`sandbox listening on ${url}`);
}

void main();
