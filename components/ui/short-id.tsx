import Link from "next/link";
import { CopyButton } from "./copy-button";

/** "mk_eqkWN34UEoa2NxyALG8pcV" → "mk_eqkW…8pcV": the start people recognise and the end they compare. */
export function shortenId(id: string, { head = 7, tail = 4 }: { head?: number; tail?: number } = {}): string {
  const chars = Array.from(id);
  return chars.length <= head + tail + 1 ? id : `${chars.slice(0, head).join("")}…${chars.slice(-tail).join("")}`;
}

/**
 * A long id (link id, correlation id, transaction id) shortened to one short line, the whole value on hover, to screen
 * readers and in the page's text (so find-in-page and text selection see it), and a button that copies it.
 */
export function ShortId({
  id,
  what,
  href,
  head,
  tail,
  className,
}: {
  id: string;
  /** What the id is, for the copy button's name: "link id", "reference". */
  what: string;
  /** Makes the id a link (to the link's page, say), in the links' colour (a.short-id-text in globals.css). */
  href?: string;
  head?: number;
  tail?: number;
  className?: string;
}) {
  const short = shortenId(id, { head, tail });
  const text =
    short === id ? (
      id
    ) : (
      <>
        <span aria-hidden="true">{short}</span>
        <span className="sr-only">{id}</span>
      </>
    );
  return (
    // .short-id is relative: the whole id (sr-only, absolutely placed) stays inside a scrolling table instead of
    // widening the page.
    <span className="short-id">
      {href ? (
        <Link href={href} title={id} className={className ? `short-id-text ${className}` : "short-id-text"}>
          {text}
        </Link>
      ) : (
        <span title={id} className={`short-id-text ${className ?? "text-slate-700"}`}>
          {text}
        </span>
      )}
      <CopyButton value={id} what={what} />
    </span>
  );
}
