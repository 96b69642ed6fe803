import type { ReactNode } from "react";
import { formatAgo, RelativeTime, timeOf } from "@/components/data-table/relative-time";
import { EntityAvatar } from "@/components/ui/entity-avatar";
import { ShortId } from "@/components/ui/short-id";
import { HintTrigger } from "@/components/ui/hint";
import { LINK_STATE_MEANINGS, WHO_ACTS_LABELS, isKnownLinkState, linkErrorLabel } from "@/lib/links/error-codes";
import { LINK_SOURCE_LABELS, LINK_SOURCE_MEANINGS } from "@/lib/links/link-sources";
import type { LinkSource } from "@/lib/db/schema";
import type { LinkTableProduct } from "./rows";
import { errorCodeInfo, stateLabel, stateTone, WHO_ACTS_CHIP_TONES } from "./options";

// The links list's cells: one line each, so a row is one line (about 40 px) and 50 rows fit a screen or two. What does
// not fit on the line (an error code's meaning and remedy, each product's status, the whole link id) is in an
// explanation made when its trigger opens (never in every row's HTML) and on the link's page. Every string in a row
// but Linkdesk's own times came from the upstream (names, tags, codes, reasons): rendered as React text, never as
// HTML; an avatar is loaded only from an http(s) address. Repeated styles are classes of globals.css (.chip, ...).

const muted = <span className="text-slate-500">—</span>;

export function LinkIdCell({ linkId }: { linkId: string }) {
  return <ShortId id={linkId} what="link id" href={`/links/${encodeURIComponent(linkId)}`} />;
}

export function InstitutionCell({
  id,
  name,
  avatar,
}: {
  id: string | null;
  name: string | null;
  avatar: string | null;
}) {
  if (!id && !name) return muted;
  const shown = name ?? id ?? "";
  return (
    <span className="institution-cell" title={name && id ? `${name} (${id})` : shown}>
      <EntityAvatar src={avatar} name={shown} colorKey={id} size={20} />
      <span>{shown}</span>
    </span>
  );
}

export function StateCell({ state }: { state: string | null }) {
  if (!state) {
    return (
      <HintTrigger hint={UNREAD_HINT} className="text-xs text-slate-500">
        Not read yet
      </HintTrigger>
    );
  }
  if (!isKnownLinkState(state)) return <NotKnownChip hint={`${STATE_HINT}${state}`} value={state} />;
  return (
    <HintTrigger hint={`${STATE_HINT}${state}`} className={`chip ${stateTone(state)}`}>
      {stateLabel(state)}
    </HintTrigger>
  );
}

/** A value the upstream added since this version was written: shown as sent, marked in words (the hint says more). */
function NotKnownChip({ hint, value }: { hint: string; value: string }) {
  return (
    <HintTrigger hint={hint} className="chip tone-plain max-w-60 border border-dashed border-slate-400 ring-0">
      <span className="font-mono">{value}</span>
      <span className="ml-1 font-normal text-slate-600">not known</span>
    </HintTrigger>
  );
}

export function ErrorCodeCell({ code }: { code: string | null }) {
  if (!code) return muted;
  const info = errorCodeInfo(code);
  if (!info) return <NotKnownChip hint={`${CODE_HINT}${code}`} value={code} />;
  return (
    <HintTrigger
      hint={`${CODE_HINT}${code}`}
      testId="error-code-chip"
      className={`chip ${WHO_ACTS_CHIP_TONES[info.whoActs]}`}
    >
      {info.label}
    </HintTrigger>
  );
}

/** Each product's letter in its mark, in PRODUCTS order. */
const PRODUCT_MARKS: Record<string, { letter: string; label: string }> = {
  accounts: { letter: "A", label: "Accounts" },
  account_numbers: { letter: "N", label: "Account numbers" },
  identity: { letter: "I", label: "Identity" },
  transactions: { letter: "T", label: "Transactions" },
  investments: { letter: "V", label: "Investments" },
  enrichment: { letter: "E", label: "Enrichment" },
};

type ProductHealth = "failing" | "unavailable" | "refreshed" | "never";

function productHealth(p: LinkTableProduct): ProductHealth {
  if (p.errorCode) return "failing";
  if (p.unavailable) return "unavailable";
  return p.refreshedAt ? "refreshed" : "never";
}

function productLine(p: LinkTableProduct, now: number): string {
  const name = PRODUCT_MARKS[p.product]?.label ?? p.product;
  switch (productHealth(p)) {
    case "failing":
      return `${name}: failing (${p.errorCode})${p.errorMessage ? `: ${p.errorMessage}` : ""}`;
    case "unavailable":
      return `${name}: unavailable: ${p.unavailable}`;
    case "refreshed": {
      const at = timeOf(p.refreshedAt!);
      return `${name}: refreshed ${Number.isNaN(at) ? p.refreshedAt : formatAgo(at, now)}`;
    }
    case "never":
      return `${name}: not refreshed yet`;
  }
}

// A mark's colours are .product-marks > i[data-health] in globals.css: lightness differs as well as hue (a dark red mark
// among light ones), and the words are in the explanation. The button's name (its label) is what a screen reader says,
// not the letters. A mark is a bare <i>: 50 rows of up to six marks each make every byte of it count.
export function ProductsCell({ linkId, products }: { linkId: string; products: LinkTableProduct[] }) {
  if (products.length === 0) return muted;
  const counts = new Map<ProductHealth, number>();
  for (const p of products) counts.set(productHealth(p), (counts.get(productHealth(p)) ?? 0) + 1);
  const summary = (["failing", "refreshed", "unavailable", "never"] as const)
    .filter((h) => counts.get(h))
    .map((h) => `${counts.get(h)} ${h === "never" ? "not refreshed yet" : h}`)
    .join(", ");
  return (
    <HintTrigger hint={`${PRODUCTS_HINT}${linkId}`} label={`Products: ${summary}`} className="product-marks">
      {products.map((p) => (
        <i key={p.product} data-health={productHealth(p)}>
          {PRODUCT_MARKS[p.product]?.letter ?? "?"}
        </i>
      ))}
    </HintTrigger>
  );
}

// The explanations behind the cells' triggers, made when one opens (components/ui/hint.tsx): the words for a state or
// an error code come from the shared tables in lib/links/error-codes.ts, sent to the browser once with this module,
// not once per row.
const UNREAD_HINT = "unread";
const STATE_HINT = "state:";
const CODE_HINT = "code:";
const PRODUCTS_HINT = "products:";
const SOURCE_HINT = "source:";

/** The explanation for a cell's hint key; `rowOf` finds a row's products by link id. */
export function linkCellHint(
  key: string,
  rowOf: (linkId: string) => { products: LinkTableProduct[] } | undefined,
  now: number,
): ReactNode {
  if (key === UNREAD_HINT)
    return "Linkdesk knows the link's id (see Learned from) but has not read its details yet. The sync reads it soon, never-read links first.";
  if (key.startsWith(SOURCE_HINT)) {
    const source = key.slice(SOURCE_HINT.length) as LinkSource;
    return LINK_SOURCE_MEANINGS[source] ?? null;
  }
  if (key.startsWith(STATE_HINT)) {
    const state = key.slice(STATE_HINT.length);
    const meaning =
      (LINK_STATE_MEANINGS as Record<string, string | undefined>)[state] ??
      "The upstream added this state after this version of Linkdesk was written: see the upstream's documentation.";
    return (
      <>
        <span className="block font-semibold">{stateLabel(state)}</span>
        <span className="mt-1 block">{meaning}</span>
      </>
    );
  }
  if (key.startsWith(CODE_HINT)) {
    const code = key.slice(CODE_HINT.length);
    const info = errorCodeInfo(code);
    if (!info)
      return (
        <>
          <span className="block font-semibold">{linkErrorLabel(code)}</span>
          <span className="mt-1 block">
            The upstream added this error code after this version of Linkdesk was written: see the upstream&rsquo;s
            documentation of link errors. The link&rsquo;s page shows its products and what else is known.
          </span>
        </>
      );
    return (
      <>
        <span className="block font-semibold">
          {info.label} <span className="font-mono font-normal text-slate-300">{code}</span>
        </span>
        <span className="mt-1 block">{info.meaning}</span>
        <span className="mt-1 block">
          <span className="font-semibold">What to do: </span>
          {info.remedy}
        </span>
        <span className="mt-1 block text-slate-300">{WHO_ACTS_LABELS[info.whoActs]}</span>
      </>
    );
  }
  if (key.startsWith(PRODUCTS_HINT)) {
    const products = rowOf(key.slice(PRODUCTS_HINT.length))?.products ?? [];
    return (
      <span className="block space-y-0.5">
        {products.map((p) => (
          <span key={p.product} className="block">
            {productLine(p, now)}
          </span>
        ))}
      </span>
    );
  }
  return null;
}

export function TagsCell({ tags }: { tags: string[] }) {
  if (tags.length === 0) return muted;
  const [first, ...rest] = tags;
  return (
    <span className="tags-cell" title={tags.join(", ")}>
      <span className="tag-chip">{first}</span>
      {rest.length > 0 ? <span className="tags-more">{`+${rest.length}`}</span> : null}
    </span>
  );
}

/** Where Linkdesk first learned of the link, in words, and when (exact time on hover). */
export function LearnedFromCell({
  source,
  at,
  now,
}: {
  source: LinkSource | null;
  at: number | string | null;
  now: number;
}) {
  if (!source) return muted;
  return (
    <span className="learned-cell">
      <HintTrigger hint={`${SOURCE_HINT}${source}`}>{LINK_SOURCE_LABELS[source] ?? source}</HintTrigger>
      {at ? <RelativeTime value={at} now={now} /> : null}
    </span>
  );
}

export function TimeCell({
  value,
  now,
  none = muted,
}: {
  value: number | string | null;
  now: number;
  none?: React.ReactNode;
}) {
  return value ? <RelativeTime value={value} now={now} /> : none;
}
