import { CopyButton } from "@/components/ui/copy-button";
import { EntityAvatar } from "@/components/ui/entity-avatar";
import { NOT_KNOWN, isKnownProvider, linkErrorLabel, linkStateLabel } from "@/lib/links/error-codes";
import type { LinkDetails } from "@/lib/links/types";
import { Time } from "./format";
import { httpUrl } from "@/lib/http/safe-url";

// The fields of the Link object staff work with; the upstream's older fields (last_synced_at, tags), which it keeps
// for compatibility and Linkdesk does not rely on, are under "All fields", said plainly. All of it is upstream text:
// rendered by React as text, never as HTML; the webhook is a link and the avatar an image only when http(s). The
// avatar's address is not a field to read: the picture is beside the institution's name.

const none = <span className="text-slate-500">none</span>;

function Field({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <>
      <dt className="text-slate-500">{label}</dt>
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

export function LinkFields({ link, createdAt }: { link: LinkDetails; createdAt?: Date | null }) {
  const webhook = httpUrl(link.webhook);
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm">
      <dl className="grid grid-cols-[11rem_1fr] gap-x-4 gap-y-1.5">
        <Field label="Link ID">
          <span className="inline-flex items-center gap-1">
            <span className="font-mono">{link.link_id}</span>
            <CopyButton value={link.link_id} what="link id" />
          </span>
        </Field>
        <Field label="Institution">
          <span className="flex items-center gap-2">
            <EntityAvatar
              src={link.institution_avatar}
              name={link.institution_name}
              colorKey={link.institution_id}
              size={24}
            />
            <span>{link.institution_name}</span>
            {link.institution_avatar && !httpUrl(link.institution_avatar) ? (
              <span className="text-xs text-amber-700">(its logo address is not http(s): not loaded)</span>
            ) : null}
          </span>
        </Field>
        <Field label="Institution ID">
          <span className="font-mono">{link.institution_id}</span>
        </Field>
        <Field label="State" testId="link-state">
          {linkStateLabel(link.state)} <span className="font-mono text-xs text-slate-500">{link.state}</span>
        </Field>
        <Field label="Error code" testId="link-error-code">
          {link.error_code ? (
            <>
              {linkErrorLabel(link.error_code)}{" "}
              <span className="font-mono text-xs text-slate-500">{link.error_code}</span>
            </>
          ) : (
            none
          )}
        </Field>
        <Field label="Provider" testId="link-provider">
          <span className="font-mono">{link.provider}</span>
          {isKnownProvider(link.provider) ? null : <span className="text-xs text-slate-500"> ({NOT_KNOWN})</span>}
        </Field>
        <Field label="Link tags">{link.link_tags?.length ? chips(link.link_tags) : none}</Field>
        <Field label="Webhook">
          {webhook ? (
            <a
              href={webhook}
              rel="noreferrer noopener"
              target="_blank"
              className="break-all font-mono text-xs text-indigo-700 hover:underline"
            >
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
              <span className="mt-0.5 block text-xs text-slate-500">
                Not granted yet: added through a new link session with existing_link_id.
              </span>
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
      </dl>
      <details className="mt-2 border-t border-slate-100 pt-2" data-testid="all-fields">
        <summary className="cursor-pointer text-xs text-slate-500 hover:text-slate-800">All fields</summary>
        <p className="mt-1 text-xs text-slate-500">
          Older fields the upstream still sends; Linkdesk shows them as sent and relies on the fields above.
        </p>
        <dl className="mt-2 grid grid-cols-[11rem_1fr] gap-x-4 gap-y-1.5">
          <Field label="Last synced at">
            <Time value={link.last_synced_at} none="not given" />
            <span className="block text-xs text-slate-500">
              Each product&rsquo;s refresh times (under Products) say more.
            </span>
          </Field>
          <Field label="Tags (older field)">
            {link.tags?.length ? chips(link.tags.map(tagText)) : none}
            <span className="block text-xs text-slate-500">Link tags above replace it.</span>
          </Field>
        </dl>
      </details>
    </div>
  );
}
