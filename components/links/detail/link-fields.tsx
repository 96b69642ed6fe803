import { LINK_ERROR_INFO, LINK_STATE_LABELS } from "@/lib/links/error-codes";
import type { WireLink } from "@/lib/upstream/schemas";
import { Time } from "./format";
import { InstitutionAvatar } from "./institution-avatar";
import { httpUrl } from "./safe-url";

// Every field of the Link object. All of it is upstream text: rendered by React as text, never as HTML; addresses
// are links or images only when http(s).

const none = <span className="text-slate-400">none</span>;

function Deprecated() {
  return <span className="ml-1.5 rounded bg-amber-100 px-1.5 py-0.5 align-middle text-[11px] font-medium uppercase tracking-wide text-amber-800">deprecated</span>;
}

function Field({ label, deprecated, children, testId }: { label: string; deprecated?: boolean; children: React.ReactNode; testId?: string }) {
  return (
    <>
      <dt className="text-slate-500">
        {label}
        {deprecated ? <Deprecated /> : null}
      </dt>
      <dd className="min-w-0 break-words text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </>
  );
}

const chips = (values: string[]) => (
  <ul className="flex flex-wrap gap-1">
    {values.map((value, i) => (
      <li key={`${i}:${value}`} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800">
        {value}
      </li>
    ))}
  </ul>
);

/** The deprecated `tags` are untyped upstream: strings as they are, anything else as JSON text. */
const tagText = (tag: unknown) => (typeof tag === "string" ? tag : JSON.stringify(tag));

export function LinkFields({ link, createdAt }: { link: WireLink; createdAt?: Date | null }) {
  const webhook = httpUrl(link.webhook);
  return (
    <dl className="grid grid-cols-[11rem_1fr] gap-x-4 gap-y-1.5 rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm">
      <Field label="Link ID">
        <span className="font-mono">{link.link_id}</span>
      </Field>
      <Field label="Institution">
        <span className="flex items-center gap-2">
          <InstitutionAvatar src={link.institution_avatar} name={link.institution_name} size={24} />
          <span>{link.institution_name}</span>
        </span>
      </Field>
      <Field label="Institution ID">
        <span className="font-mono">{link.institution_id}</span>
      </Field>
      <Field label="Institution avatar">
        {link.institution_avatar ? (
          <span className="break-all font-mono text-xs">
            {link.institution_avatar}
            {httpUrl(link.institution_avatar) ? null : <span className="ml-1 font-sans text-amber-700">(not an http(s) address: not loaded)</span>}
          </span>
        ) : (
          none
        )}
      </Field>
      <Field label="State" testId="link-state">
        {LINK_STATE_LABELS[link.state]} <span className="font-mono text-xs text-slate-500">{link.state}</span>
      </Field>
      <Field label="Error code" testId="link-error-code">
        {link.error_code ? (
          <>
            {LINK_ERROR_INFO[link.error_code].label} <span className="font-mono text-xs text-slate-500">{link.error_code}</span>
          </>
        ) : (
          none
        )}
      </Field>
      <Field label="Provider">
        <span className="font-mono">{link.provider}</span>
      </Field>
      <Field label="Link tags">{link.link_tags?.length ? chips(link.link_tags) : none}</Field>
      <Field label="Webhook">
        {webhook ? (
          <a href={webhook} rel="noreferrer noopener" target="_blank" className="break-all font-mono text-xs text-indigo-700 hover:underline">
            {link.webhook}
          </a>
        ) : link.webhook ? (
          <span className="break-all font-mono text-xs">{link.webhook}</span>
        ) : (
          none
        )}
      </Field>
      <Field label="Auth expired at">
        <Time value={link.auth_expired_at} none="not expired" />
      </Field>
      <Field label="Available products">
        {link.available_products?.length ? (
          <>
            {chips(link.available_products)}
            <span className="mt-0.5 block text-xs text-slate-500">Not granted yet: added through a new link session with existing_link_id.</span>
          </>
        ) : (
          none
        )}
      </Field>
      {createdAt !== undefined ? (
        <Field label="Created">
          <Time value={createdAt} none="unknown (not listed yet)" />
        </Field>
      ) : null}
      <Field label="Last synced at" deprecated>
        <Time value={link.last_synced_at} none="not given" />
        <span className="block text-xs text-slate-500">Not relied on: see each product&rsquo;s refresh times below.</span>
      </Field>
      <Field label="Tags" deprecated>
        {link.tags?.length ? chips(link.tags.map(tagText)) : none}
        <span className="block text-xs text-slate-500">Replaced by link tags.</span>
      </Field>
    </dl>
  );
}
