import Link from "next/link";
import { signed } from "@/lib/links/health-change";
import { formatCount } from "./format";

export interface Bar {
  key: string;
  /** Text only: may come from the upstream. */
  label: string;
  /** A second, smaller line: the raw code, an id. */
  detail?: string;
  count: number;
  href: string;
  /** A Tailwind background class for the bar. */
  color?: string;
  /** The change over Health's window, where one is shown; up is worse for a count of problems. */
  change?: number;
}

/**
 * Horizontal bars, one per row, each row one link to the rows it counts. The bar is decoration (aria-hidden): the
 * label and the number are the content, so screen readers and text browsers read "Connected 76,000".
 *
 * The layout follows the list's own width, not the window's (a card in a two- or three-column grid is narrow on a
 * 1024 px screen): label, bar and count side by side when the list is wide enough for a bar of at least 6rem, else
 * the label and count on one line with the bar across the row beneath them.
 */
export function BarList({ bars, max, empty = "None" }: { bars: Bar[]; max?: number; empty?: string }) {
  if (bars.length === 0) return <p className="text-sm text-slate-500">{empty}</p>;
  const top = Math.max(1, max ?? Math.max(...bars.map((b) => b.count)));
  return (
    <ul className="@container space-y-1.5">
      {bars.map((bar) => (
        <li key={bar.key}>
          {/* The row's styles are .bar-row's and its parts' in globals.css: one class rather than the same long list on
              each of the page's 25 rows, in its HTML and again in its RSC payload. */}
          <Link href={bar.href} className="group bar-row">
            <span className="min-w-0">
              <span className="bar-label" title={bar.label}>
                {bar.label}
              </span>
              {bar.detail ? <span className="bar-detail">{bar.detail}</span> : null}
            </span>
            <span aria-hidden="true" className="bar-track">
              <span
                className={`bar-fill ${bar.color ?? "bg-indigo-500"}`}
                style={{ width: bar.count > 0 ? `max(3px, ${((bar.count / top) * 100).toFixed(2)}%)` : 0 }}
              />
            </span>
            <span className="bar-count">
              {formatCount(bar.count)}
              {bar.change ? (
                <span className={`ml-1 text-xs font-medium ${bar.change > 0 ? "text-red-700" : "text-emerald-700"}`}>
                  {signed(bar.change)}
                </span>
              ) : null}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
