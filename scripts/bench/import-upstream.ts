// Planning an import against what the upstream holds (issue 35's measure): a 300-link file over 30 customers who hold
// 10 links each at the sandbox, the file's own links among them (half imported by Linkdesk with its identity tag, half
// migrated by a script with only a legacy_id tag). For each variant ops meet, the upstream lookups the check makes, the
// time to a plan (the check and the planning, in one process, on an embedded database), the links the plan would
// create, and how many of those the upstream already holds (duplicates: the goal is 0). Beside them, the same file
// planned against Linkdesk's own records only (no upstream lookups), as before issue 35. Linkdesk's share of the rate
// limits (half of each) paces the lookups; the sandbox answers at once (no latency, rate limits off). Run alone:
// `tsx --conditions=react-server scripts/bench/import-upstream.ts`.
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { startSandbox } from "../../sandbox/test-support";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { createDatabase } from "../../lib/db/client";
import { DEFAULT_IDENTITY, type IdentityRule, identityOf } from "../../lib/import/identity";
import { sha256Hex } from "../../lib/import/reader";
import { NO_DECISIONS } from "../../lib/import/upstream-match";
import { identityTag } from "../../lib/jobs/imported-links";
import { startImportJob } from "../../lib/jobs/import-start";
import type { ImportJobParams } from "../../lib/jobs/import-items";
import { checkFileWithUpstream, forgetUpstreamChecks } from "../../lib/jobs/import-upstream";
import { UpstreamClient } from "../../lib/upstream/client";
import { UpstreamApi } from "../../lib/upstream/index";
import { type Figure, type SuiteResult, below, printSuite } from "./report";

const CUSTOMERS = 30;
const LINKS_PER_CUSTOMER = 10;
const TRANSACTIONS = 20;

interface Variant {
  name: string;
  rule: IdentityRule;
  /** The file's link i as this variant writes it. */
  link: (i: number) => Record<string, unknown>;
}

export async function benchImportUpstream(): Promise<SuiteResult> {
  const m = randomUUID().slice(0, 8);
  const sandbox = await startSandbox({ links: 10 });
  const database = await createDatabase({ dataDir: "memory" });
  const figures: Figure[] = [];
  try {
    const { clientId, clientSecret } = sandbox.sandbox.state.options;
    const budget = new Budget({
      store: createMemoryStore(),
      clientId,
      appId: clientId,
      shares: { app: 0.5, link: 0.5, user: 0.5, client: 0.5 },
      interactiveMaxWaitMs: 0,
    });
    const api = new UpstreamApi(
      new UpstreamClient({ baseUrl: sandbox.base, clientId, clientSecret, gate: budget }),
      30_000,
    );
    const body = (i: number, opts: { transactions?: number; institution?: string } = {}) => {
      const accountId = `acc-${m}-${i}`;
      return {
        customer_user: { id: `cu-${m}-${i % CUSTOMERS}` },
        institution_id: opts.institution ?? "chase",
        accounts: [
          { account_id: accountId, name: "Checking", type: "checking", mask: "1234", balances: { current: 1 } },
        ],
        transactions: Array.from({ length: opts.transactions ?? TRANSACTIONS }, (_, k) => ({
          account_id: accountId,
          transaction_id: `t${k}`,
          amount: "-1.00",
          date: `2024-03-${String(1 + (k % 28)).padStart(2, "0")}`,
        })),
        link_tags: [`legacy_id:${m}-${i}`],
      };
    };
    const links = CUSTOMERS * LINKS_PER_CUSTOMER;
    // The upstream: every link of the file, half with Linkdesk's identity tag (imported by Linkdesk by customer,
    // institution and accounts), half with only its legacy tag (migrated by a script).
    for (let i = 0; i < links; i++) {
      const b = body(i);
      const key = identityOf(b, DEFAULT_IDENTITY);
      const tags = i % 2 === 0 && key.ok ? [...b.link_tags, identityTag(key.key)] : b.link_tags;
      const answer = await sandbox.api("POST", "/links/import", { body: { ...b, link_tags: tags } });
      if (answer.status !== 200) throw new Error(`seeding link ${i}: HTTP ${answer.status}`);
    }
    const fresh = (i: number) => ({ ...body(i), customer_user: { id: `cu-${m}-new-${i % CUSTOMERS}` } });
    const legacy = { kind: "tag", name: "legacy_id" } as const;

    const variants: Variant[] = [
      { name: "new customers (nothing there)", rule: DEFAULT_IDENTITY, link: fresh },
      { name: "default identity (Linkdesk's tag or the shape)", rule: DEFAULT_IDENTITY, link: (i) => body(i) },
      { name: "known by legacy_id", rule: legacy, link: (i) => body(i) },
      {
        name: "extended (+25 transactions on 30 links)",
        rule: legacy,
        link: (i) => body(i, { transactions: i % 10 === 0 ? TRANSACTIONS + 25 : TRANSACTIONS }),
      },
      {
        name: "corrected (institution fixed on 30 links)",
        rule: DEFAULT_IDENTITY,
        link: (i) => body(i, { institution: i % 10 === 0 ? "ally" : "chase" }),
      },
    ];
    for (const variant of variants) {
      if (variant.rule.kind === "tag" && variant.name.startsWith("known")) {
        // Ops now name legacy_id: an import that names it makes it identify links in every mode since.
        await startImportJob(
          database.db,
          { id: randomUUID(), email: "bench@example.com", role: "ops" },
          { bytes: new TextEncoder().encode(JSON.stringify(fresh(0))), name: "seed.json" },
          6,
          legacy,
        );
      }
      const lines = Array.from({ length: links }, (_, i) => JSON.stringify(variant.link(i)));
      const bytes = new TextEncoder().encode(lines.join("\n"));
      const sha256 = await sha256Hex(bytes);
      forgetUpstreamChecks();
      const started = performance.now();
      const check = await checkFileWithUpstream(database.db, api, { bytes, sha256 }, variant.rule);
      const result = await startImportJob(
        database.db,
        { id: randomUUID(), email: "bench@example.com", role: "ops" },
        { bytes, name: `${variant.name}.ndjson`, sha256 },
        6,
        variant.rule,
        { upstream: { check, decisions: NO_DECISIONS } },
      );
      const ms = performance.now() - started;
      const planned = result.outcome === "started" ? ((result.job.params as { links?: number }).links ?? 0) : 0;
      const onUpstream = variant.name.startsWith("new") ? 0 : links;
      // Every link of these files is at the upstream, except the first variant's: any link planned there is a duplicate.
      const duplicates = variant.name.startsWith("new") ? 0 : planned;
      const kinds = [...check.matches.values()].reduce<Record<string, number>>((acc, m) => {
        acc[m.kind] = (acc[m.kind] ?? 0) + 1;
        return acc;
      }, {});
      figures.push(
        { label: `${variant.name}: upstream lookups`, value: check.calls, unit: "calls" },
        { label: `${variant.name}: time to a plan`, value: Math.round(ms), unit: "ms" },
        {
          label: `${variant.name}: links matched at the upstream`,
          value: links - (kinds.new ?? 0),
          unit: "links",
          note: Object.entries(kinds)
            .map(([k, n]) => `${k} ${n}`)
            .join(", "),
        },
        {
          label: `${variant.name}: links planned for creation (of ${links}, ${onUpstream} at the upstream)`,
          value: planned,
          unit: "links",
        },
        { label: `${variant.name}: duplicates`, value: duplicates, unit: "links", goal: below(1) },
      );
      const summary = result.outcome === "started" ? (result.job.params as ImportJobParams).upstream : undefined;
      if (summary?.updating)
        figures.push({
          label: `${variant.name}: new transactions planned onto links the upstream has`,
          value: summary.newTransactions,
          unit: "transactions",
          note: `${summary.updating} links`,
        });
      const fixed = [...check.matches.values()].filter(
        (m) => (m.kind === "same" || m.kind === "possible") && m.diff.fixed.length > 0,
      ).length;
      if (fixed > 0)
        figures.push({
          label: `${variant.name}: links shown with what the upstream cannot change`,
          value: fixed,
          unit: "links",
        });
      // Linkdesk's records only, as before issue 35: the same file, no lookups.
      if (variant.name.startsWith("default")) {
        const local = performance.now();
        await startImportJob(
          database.db,
          { id: randomUUID(), email: "bench@example.com", role: "ops" },
          { bytes: new TextEncoder().encode(lines.slice().reverse().join("\n")), name: "local.ndjson" },
          6,
          variant.rule,
        );
        figures.push({
          label: "beside: the same file planned against Linkdesk's records only (before issue 35)",
          value: Math.round(performance.now() - local),
          unit: "ms",
        });
      }
    }
  } finally {
    await database.close();
    await sandbox.close();
  }
  return { name: `planning a ${CUSTOMERS * LINKS_PER_CUSTOMER}-link import against the upstream`, figures };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printSuite({ key: "import-upstream", seconds: 0, ...(await benchImportUpstream()) });
}
