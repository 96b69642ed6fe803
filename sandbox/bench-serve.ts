// Throughput of the sandbox serving GET /links/{id} on loopback, rate limits off. Client and server share one
// process (and event loop), so the figure is a floor for the server alone.
import { Agent, request } from "node:http";
import { SANDBOX_DEFAULTS } from "./defaults";
import { createSandbox } from "./server";

export interface ServeBenchResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Target {
  host: string;
  port: number;
  headers: Record<string, string>;
}

function call(
  agent: Agent,
  target: Target,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.host, port: target.port, method, path, headers: target.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function benchSandboxServe(
  opts: { seconds?: number; concurrency?: number } = {},
): Promise<ServeBenchResult> {
  const seconds = opts.seconds ?? 5;
  const concurrency = opts.concurrency ?? 32;
  const sandbox = createSandbox({ rateLimits: false, links: 10_000, importDelayMs: 0 });
  const base = new URL(await sandbox.listen(0));
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target: Target = { host: base.hostname, port: Number(base.port), headers: {} };
  try {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: SANDBOX_DEFAULTS.clientId,
      client_secret: SANDBOX_DEFAULTS.clientSecret,
    }).toString();
    const token = await call(
      agent,
      { ...target, headers: { "Content-Type": "application/x-www-form-urlencoded" } },
      "POST",
      "/auth/token",
      form,
    );
    const { access_token: accessToken } = JSON.parse(token.text) as { access_token: string };
    target.headers = {
      Authorization: `Bearer ${accessToken}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
    };
    const page = JSON.parse((await call(agent, target, "GET", "/links?limit=5000")).text) as {
      links: { link_id: string }[];
    };
    const ids = page.links.map((link) => link.link_id);
    if (ids.length === 0) throw new Error("bench: the sandbox listed no links");

    const latencies: number[] = [];
    let failures = 0;
    let next = 0;
    const deadline = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const id = ids[next++ % ids.length];
        const started = performance.now();
        const response = await call(agent, target, "GET", `/links/${id}`);
        latencies.push(performance.now() - started);
        if (response.status !== 200) failures++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = (performance.now() - started) / 1000;
    if (failures > 0) throw new Error(`bench: ${failures} of ${latencies.length} requests failed`);
    latencies.sort((a, b) => a - b);
    return {
      requestsPerSecond: latencies.length / elapsed,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
  } finally {
    agent.destroy();
    await sandbox.close();
  }
}
