import Link from "next/link";
import type { InstitutionErrors, ProviderErrors } from "@/lib/links/health-summary";
import { NOT_KNOWN, isKnownProvider } from "@/lib/links/error-codes";
import { formatCount } from "./format";
import { linksHref } from "./links-href";

// Institution names come from the upstream: rendered as React text, never as HTML.

export function InstitutionErrorsTable({ rows }: { rows: InstitutionErrors[] }) {
  if (rows.length === 0) return <p className="text-sm text-slate-500">No link is in error.</p>;
  return (
    <table className="min-w-full text-sm">
      <thead className="text-left text-xs font-medium uppercase tracking-wide text-slate-500">
        <tr>
          <th scope="col" className="py-1 pr-3">
            Institution
          </th>
          <th scope="col" className="py-1 text-right">
            Links in error
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((row) => (
          <tr key={row.institutionId}>
            <td className="max-w-0 py-1.5 pr-3">
              <span className="block truncate text-slate-800" title={row.institutionName ?? undefined}>
                {row.institutionName ?? "(no name)"}
              </span>
              <span className="block truncate font-mono text-xs text-slate-500">{row.institutionId}</span>
            </td>
            <td className="py-1.5 text-right">
              <Link
                href={linksHref({ state: "error", institution: row.institutionId })}
                className="font-semibold tabular-nums text-indigo-700 hover:underline"
              >
                {formatCount(row.count)}
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ProviderErrorsTable({ rows }: { rows: ProviderErrors[] }) {
  if (rows.length === 0) return <p className="text-sm text-slate-500">No link is in error.</p>;
  return (
    <table className="min-w-full text-sm">
      <thead className="text-left text-xs font-medium uppercase tracking-wide text-slate-500">
        <tr>
          <th scope="col" className="py-1 pr-3">
            Provider
          </th>
          <th scope="col" className="py-1 text-right">
            Links in error
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((row) => (
          <tr key={row.provider}>
            <td className="py-1.5 pr-3 font-mono text-slate-800">
              {row.provider}
              {isKnownProvider(row.provider) ? null : (
                <span className="block font-sans text-xs text-slate-500">{NOT_KNOWN}</span>
              )}
            </td>
            <td className="py-1.5 text-right">
              <Link
                href={linksHref({ state: "error", provider: row.provider })}
                className="font-semibold tabular-nums text-indigo-700 hover:underline"
              >
                {formatCount(row.count)}
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
