// The client's cost: fetching and validating a 1000-transaction page through lib/upstream, against a raw fetch +
// JSON.parse of the same page, interleaved in one run so machine noise hits both alike.
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { startSandbox } from "../processes";
import { type SuiteResult, atMost, fromRuns } from "./report";
import { median, percentile } from "./stats";

export async function benchUpstreamClient({
  iterations = 150,
  warmup = 20,
  sandboxPort = 4180,
} = {}): Promise<SuiteResult> {
  const sandbox = await startSandbox({
    port: sandboxPort,
    quiet: true,
    env: {
      SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
      SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
      SANDBOX_RATE_LIMITS: "off",
      SANDBOX_LINKS: "20",
      SANDBOX_TRANSACTIONS_PER_LINK: "1200",
    },
  });
  try {
    const client = new UpstreamClient({
      baseUrl: sandbox.url,
      clientId: SANDBOX_DEFAULTS.clientId,
      clientSecret: SANDBOX_DEFAULTS.clientSecret,
    });
    const api = new UpstreamApi(client);
    const { links } = await api.listLinks({ limit: 500 });
    // A link with a full page: connected links carry the transactions product.
    let linkId: string | undefined;
    for (const { link_id } of links) {
      const page = await api.getTransactions(link_id, { size: 1000 }).catch(() => undefined);
      if (page && page.transactions.length === 1000) {
        linkId = link_id;
        break;
      }
    }
    if (!linkId) throw new Error("no sandbox link with a 1000-transaction page");

    const tokenResponse = await fetch(`${sandbox.url}/auth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: SANDBOX_DEFAULTS.clientId,
        client_secret: SANDBOX_DEFAULTS.clientSecret,
      }),
    });
    const { access_token } = (await tokenResponse.json()) as { access_token: string };
    const url = `${sandbox.url}/links/${linkId}/transactions?page=1&size=1000&start_date=1900-01-01`;
    const headers = {
      Authorization: `Bearer ${access_token}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
      Accept: "application/json",
    };

    const raw = async () => {
      const response = await fetch(url, { headers });
      const body = JSON.parse(await response.text()) as { transactions: unknown[] };
      if (body.transactions.length !== 1000) throw new Error("raw page short");
    };
    const viaClient = async () => {
      const page = await api.getTransactions(linkId, { page: 1, size: 1000 });
      if (page.transactions.length !== 1000) throw new Error("client page short");
    };

    const timings = { raw: [] as number[], client: [] as number[] };
    for (let i = 0; i < warmup + iterations; i++) {
      // Alternate which goes first so neither always runs on a warmer cache.
      const order = i % 2 === 0 ? (["raw", "client"] as const) : (["client", "raw"] as const);
      for (const kind of order) {
        const started = performance.now();
        await (kind === "raw" ? raw() : viaClient());
        if (i >= warmup) timings[kind].push(performance.now() - started);
      }
    }
    const rawMedian = median(timings.raw);
    const clientMedian = median(timings.client);
    return {
      name: "lib/upstream vs raw fetch, 1000-transaction page",
      figures: [
        fromRuns("raw fetch + JSON.parse", timings.raw, "ms", {
          note: `p99 ${percentile(timings.raw, 99).toFixed(2)} ms`,
        }),
        fromRuns("lib/upstream getTransactions", timings.client, "ms", {
          note: `p99 ${percentile(timings.client, 99).toFixed(2)} ms`,
          versus: { label: "raw fetch", value: rawMedian },
        }),
        {
          label: "lib/upstream ÷ raw fetch, medians (interleaved runs)",
          value: clientMedian / rawMedian,
          unit: "×",
          goal: atMost(1.2),
          note: `${iterations} runs each`,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
