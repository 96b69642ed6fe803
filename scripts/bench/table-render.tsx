// What server rendering a page of the links table costs, outside Next.js: DataTable with the links columns rendered to
// HTML with React's server renderer, 50 rows and none (the table's frame), `renders` times each after a warm-up. The
// difference is the rows' share of a /links view's server CPU. Not part of `npm run bench`; compare builds with git
// stash.
// Run: NODE_ENV=production tsx scripts/bench/table-render.tsx [renders, default 300]
import { renderToString } from "react-dom/server";
import { DataTable } from "../../components/data-table/data-table";
import { linkColumns } from "../../components/links/list/columns";
import type { LinkTableRow } from "../../components/links/list/rows";

const renders = Number(process.argv[2] ?? 300);
const now = Date.parse("2026-11-20T12:00:00Z");
const at = (minutesAgo: number) => now - minutesAgo * 60_000;
// Rows as the sandbox's links look: three products, two tags, a third of them failing.
const rows: LinkTableRow[] = Array.from({ length: 50 }, (_, i) => ({
  linkId: `mk_${String(i).padStart(22, "0")}`,
  createdAt: at(i * 60),
  institutionId: "chase",
  institutionName: "Chase",
  institutionAvatar: "https://logos.example.com/chase.svg",
  state: i % 3 ? "connected" : "error",
  errorCode: i % 3 ? null : "provider_error",
  provider: "plaid",
  linkTags: ["plan:free", "region:us"],
  lastRefreshedAt: at(i),
  learnedFrom: i % 4 ? "listing" : "registration",
  learnedAt: at(i * 60 + 5),
  products: [
    { product: "accounts", refreshedAt: at(i) },
    { product: "transactions", refreshedAt: at(i) },
    { product: "enrichment", errorCode: "unknown", errorMessage: "The last refresh failed." },
  ],
}));

const table = (n: number) => (
  <DataTable
    columns={linkColumns}
    data={rows.slice(0, n)}
    getRowId={(row) => row.linkId}
    sort={{ id: "created_at", dir: "desc" }}
    view={{ pathname: "/links", query: "" }}
    renderedAt={now}
    label="Links"
  />
);

for (let i = 0; i < 50; i++) renderToString(table(50));
for (const n of [0, 50]) {
  const times: number[] = [];
  for (let i = 0; i < renders; i++) {
    const started = performance.now();
    renderToString(table(n));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${String(n).padStart(2)} rows: median ${times[Math.floor(times.length / 2)]!.toFixed(2)} ms a render (p90 ${times[Math.floor(times.length * 0.9)]!.toFixed(2)} ms), ${renderToString(table(n)).length.toLocaleString("en")} characters`,
  );
}
