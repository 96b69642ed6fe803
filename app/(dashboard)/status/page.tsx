import type { Metadata } from "next";
import Link from "next/link";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { checkUpstream } from "@/lib/upstream/status";

export const metadata: Metadata = { title: "Status" };

const utc = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 19)} UTC`;

type CheckView = { ok: true; text: string } | { ok: false; title: string; detail: string };

function CheckRow({
  label,
  okTitle,
  check,
  testId,
}: {
  label: string;
  okTitle: string;
  check: CheckView;
  testId: string;
}) {
  return (
    <div data-testid={testId}>
      <dt className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd>
        {check.ok ? (
          <Callout tone="success" title={okTitle} role="status">
            {check.text}
          </Callout>
        ) : (
          <Callout tone="error" title={check.title}>
            {check.detail}
          </Callout>
        )}
      </dd>
    </div>
  );
}

export default async function StatusPage({ searchParams }: { searchParams: Promise<{ refresh?: string }> }) {
  const { refresh } = await searchParams;
  const status = await checkUpstream({ fresh: refresh !== undefined, read: true });
  const { reachable, token, read } = status;
  return (
    <>
      <PageHeader
        title="Upstream status"
        description="Whether Linkdesk can reach the linking API, obtain an access token with its client credentials, and read data."
        actions={
          <Link
            href={`/status?refresh=${status.checkedAt.getTime()}`}
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
          >
            Check again
          </Link>
        }
      />
      <dl className="grid max-w-3xl gap-5">
        <div>
          <dt className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Upstream</dt>
          <dd className="rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm">
            {status.mode === "sandbox" ? "The bundled sandbox (demo mode)" : "A real upstream"} at{" "}
            <span className="font-mono">{status.displayUrl}</span>
          </dd>
        </div>
        <CheckRow
          label="Reachability"
          okTitle="Reachable"
          testId="status-reachability"
          check={
            reachable.ok
              ? {
                  ok: true,
                  text: `Connected in ${reachable.latencyMs} ms (a connection only: no request, no rate limit spent).`,
                }
              : reachable
          }
        />
        <CheckRow
          label="Access token"
          okTitle="Access token obtained"
          testId="status-token"
          check={
            token.ok
              ? { ok: true, text: `Valid until ${utc(token.expiresAt)}. The token itself stays on the server.` }
              : token
          }
        />
        {read ? (
          <CheckRow
            label="Reading data"
            okTitle="Links can be read"
            testId="status-read"
            check={
              read.ok
                ? {
                    ok: true,
                    text: `GET /links answered ${read.links} link ids in ${read.latencyMs} ms, matching the API contract.`,
                  }
                : read
            }
          />
        ) : null}
      </dl>
      <p className="mt-4 text-xs text-slate-500">Checked {utc(status.checkedAt)}.</p>
    </>
  );
}
