import Link from "next/link";
import { ScrollTable } from "@/components/ui/scroll-table";
import { NOT_KNOWN } from "@/lib/links/error-codes";
import type { ReadNoticeRow } from "@/lib/read-notices/store";

// What the upstream has sent that this version of Linkdesk does not know, or could not read: so operators learn of a
// new error code or a renamed category the day it appears, not from a blank page.

const TABLE = "min-w-full divide-y divide-slate-200 text-sm [&_td]:px-3 [&_td]:py-2 [&_th]:px-3 [&_th]:py-2";
const HEAD = "bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500";
const utc = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 16)} UTC`;
const count = (n: number) => n.toLocaleString("en");

/** Where a link-level value can be listed: a link into the links list filtered by it. */
function linksHref(row: ReadNoticeRow): string | null {
  if (row.field === "link.state") return `/links?state=${encodeURIComponent(row.value)}`;
  if (row.field === "link.error_code") return `/links?error_code=${encodeURIComponent(row.value)}`;
  if (row.field === "link.provider") return `/links?provider=${encodeURIComponent(row.value)}`;
  if (row.field === "link.products.error_code") return `/links?product_error=${encodeURIComponent(row.value)}`;
  return null;
}

export function ReadNotices({ rows: read }: { rows: ReadNoticeRow[] | null }) {
  const rows = read ?? [];
  const unknown = rows.filter((r) => r.kind === "unknown_value");
  const unreadable = rows.filter((r) => r.kind === "unreadable");
  return (
    <section className="mt-8 max-w-5xl" aria-labelledby="read-notices-heading" data-testid="status-read-notices">
      <h2 id="read-notices-heading" className="text-base font-semibold text-slate-900">
        What the upstream sent that Linkdesk does not know
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The upstream&rsquo;s lists grow (new error codes, states, products, categories). A value this version of
        Linkdesk does not know is kept and shown as sent, marked &ldquo;{NOT_KNOWN}&rdquo;; something it cannot read at
        all is set aside, and the rest of the answer is read.
      </p>
      {read === null ? (
        <p className="mt-3 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          Linkdesk&rsquo;s database did not answer, so these counts cannot be shown now.
        </p>
      ) : rows.length === 0 ? (
        <p className="mt-3 rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm text-slate-700">
          Nothing so far: every answer read matched the lists this version knows.
        </p>
      ) : null}
      {unknown.length > 0 ? (
        <div className="mt-3">
          <ScrollTable>
            <table className={TABLE} aria-label="Values not known to this version of Linkdesk">
              <thead className={HEAD}>
                <tr>
                  <th scope="col">Value</th>
                  <th scope="col">Field</th>
                  <th scope="col" className="text-right">
                    Links now
                  </th>
                  <th scope="col" className="text-right">
                    Answers
                  </th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {unknown.map((row) => {
                  const href = linksHref(row);
                  return (
                    <tr key={`${row.field}:${row.value}`} data-testid="read-notice-unknown">
                      <td className="font-mono">{row.value}</td>
                      <td className="font-mono text-xs text-slate-600">{row.field}</td>
                      <td className="text-right tabular-nums">
                        {row.links === null ? (
                          <span
                            className="text-slate-500"
                            title="Not kept per link: seen in a transaction or an account"
                          >
                            not kept per link
                          </span>
                        ) : href && row.links > 0 ? (
                          <Link href={href} className="text-sky-700 underline">
                            {count(row.links)}
                          </Link>
                        ) : (
                          count(row.links)
                        )}
                      </td>
                      <td className="text-right tabular-nums">{count(row.answers)}</td>
                      <td className="whitespace-nowrap">{utc(row.firstSeenAt)}</td>
                      <td className="whitespace-nowrap">{utc(row.lastSeenAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollTable>
        </div>
      ) : null}
      {unreadable.length > 0 ? (
        <div className="mt-4">
          <ScrollTable>
            <table className={TABLE} aria-label="What Linkdesk could not read">
              <thead className={HEAD}>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Why</th>
                  <th scope="col">Example</th>
                  <th scope="col" className="text-right">
                    Answers
                  </th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {unreadable.map((row) => (
                  <tr key={`${row.field}:${row.value}`} data-testid="read-notice-unreadable">
                    <td className="font-mono text-xs">{row.field}</td>
                    <td>{row.value}</td>
                    <td className="font-mono text-xs">{row.exampleItemId ?? "—"}</td>
                    <td className="text-right tabular-nums">{count(row.answers)}</td>
                    <td className="whitespace-nowrap">{utc(row.lastSeenAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        </div>
      ) : null}
    </section>
  );
}
