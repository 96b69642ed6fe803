import Link from "next/link";
import { RelativeTime } from "@/components/data-table/relative-time";
import { InstitutionAvatar } from "@/components/links/detail/institution-avatar";
import type { LinkListItem, LinkProductStatus } from "@/lib/links/query";
import { WHO_ACTS_LABELS } from "@/lib/links/error-codes";
import { errorCodeInfo, stateLabel, stateTone, WHO_ACTS_TONES } from "./options";

// The links list's cells. Every string in a row but Linkdesk's own times came from the upstream (names, tags, codes,
// reasons): rendered as React text, never as HTML; an avatar is loaded only from an http(s) address.

const muted = <span className="text-slate-400">—</span>;

export function LinkIdCell({ linkId }: { linkId: string }) {
  return (
    <Link href={`/links/${encodeURIComponent(linkId)}`} className="break-all font-mono text-xs text-indigo-700 hover:underline">
      {linkId}
    </Link>
  );
}

export function InstitutionCell({ id, name, avatar }: { id: string | null; name: string | null; avatar: string | null }) {
  if (!id && !name) return muted;
  const shown = name ?? id ?? "";
  return (
    <div className="flex min-w-40 items-center gap-2">
      {/* The detail page's avatar: loaded only from an http(s) address, else the name's initial. */}
      <InstitutionAvatar src={avatar} name={shown} size={24} />
      <span className="min-w-0">
        <span className="block text-slate-900">{shown}</span>
        {name && id ? <span className="block font-mono text-xs text-slate-500">{id}</span> : null}
      </span>
    </div>
  );
}

export function StateCell({ state }: { state: string | null }) {
  if (!state) {
    return (
      <span className="text-xs text-slate-500" title="Listed by the upstream; its details have not been read yet">
        Not read yet
      </span>
    );
  }
  return <span className={`inline-block whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${stateTone(state)}`}>{stateLabel(state)}</span>;
}

export function ErrorCodeCell({ code }: { code: string | null }) {
  if (!code) return muted;
  const info = errorCodeInfo(code);
  if (!info) {
    return (
      <div className="max-w-xs">
        <span className="font-mono text-xs text-slate-800">{code}</span>
        <p className="text-xs text-slate-500">Not a code Linkdesk knows: see the upstream&apos;s documentation.</p>
      </div>
    );
  }
  return (
    <div className="max-w-xs">
      <span className="font-medium text-slate-900">{info.label}</span> <span className="font-mono text-xs text-slate-500">{code}</span>
      <p className="text-xs text-slate-600">{info.meaning}</p>
      <p className={`text-xs font-medium ${WHO_ACTS_TONES[info.whoActs]}`} title={WHO_ACTS_LABELS[info.whoActs]}>
        {info.remedy}
      </p>
    </div>
  );
}

export function ProductsCell({ products, now }: { products: LinkProductStatus[]; now: number }) {
  if (products.length === 0) return muted;
  return (
    <ul className="min-w-44 space-y-0.5 text-xs">
      {products.map((p) => (
        <li key={p.product} className="flex flex-wrap gap-x-1.5">
          <span className="text-slate-700">{p.product}</span>
          <ProductStatus status={p} now={now} />
        </li>
      ))}
    </ul>
  );
}

function ProductStatus({ status, now }: { status: LinkProductStatus; now: number }) {
  if (status.errorCode) {
    const info = errorCodeInfo(status.errorCode);
    return (
      <span className="font-mono text-red-700" title={status.errorMessage ?? info?.meaning}>
        error {status.errorCode}
      </span>
    );
  }
  if (status.unavailable) return <span className="text-slate-500">unavailable: {status.unavailable}</span>;
  if (status.refreshedAt) {
    return (
      <span className="text-slate-500">
        refreshed <RelativeTime value={status.refreshedAt} now={now} />
      </span>
    );
  }
  return <span className="text-slate-400">not refreshed yet</span>;
}

function DeprecatedMark() {
  return <span className="rounded bg-slate-100 px-1 text-[10px] font-medium uppercase tracking-wide text-slate-500">deprecated</span>;
}

export function TagsCell({ tags, deprecatedTags }: { tags: string[]; deprecatedTags: string[] | null }) {
  return (
    <div className="min-w-28 space-y-1">
      {tags.length > 0 ? (
        <ul className="flex flex-wrap gap-1">
          {tags.map((tag) => (
            <li key={tag} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">
              {tag}
            </li>
          ))}
        </ul>
      ) : (
        muted
      )}
      {deprecatedTags?.length ? (
        <p className="text-xs text-slate-400" title="The upstream's deprecated tags field: link_tags replaces it; not used for filtering">
          <DeprecatedMark /> tags: {deprecatedTags.join(", ")}
        </p>
      ) : null}
    </div>
  );
}

export function LastRefreshedCell({ item, now }: { item: LinkListItem; now: number }) {
  return (
    <div className="whitespace-nowrap">
      {item.lastRefreshedAt ? <RelativeTime value={item.lastRefreshedAt} now={now} className="text-slate-800" /> : <span className="text-slate-500">never</span>}
      {item.deprecated.lastSyncedAt ? (
        <p className="text-xs text-slate-400" title="The upstream's deprecated last_synced_at: not used for sorting or staleness">
          <DeprecatedMark /> last_synced_at <RelativeTime value={item.deprecated.lastSyncedAt} now={now} />
        </p>
      ) : null}
    </div>
  );
}

export function TimeCell({ value, now }: { value: string | null; now: number }) {
  return value ? <RelativeTime value={value} now={now} className="whitespace-nowrap text-slate-700" /> : muted;
}
