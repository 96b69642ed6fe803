import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Links" };

// Until the synced links list arrives, staff open a link by its id (from a ticket, a log line or the upstream).
export default async function LinksPage({ searchParams }: { searchParams: Promise<{ id?: string }> }) {
  const id = (await searchParams).id?.trim();
  if (id) redirect(`/links/${encodeURIComponent(id)}`);
  return (
    <>
      <PageHeader title="Links" description="Every bank connection with its state and error codes." />
      <form method="GET" action="/links" className="flex max-w-xl items-end gap-2 rounded-lg border border-slate-200 bg-white p-4">
        <div className="flex-1">
          <label htmlFor="link-id" className="block text-sm font-medium text-slate-700">
            Open a link by id
          </label>
          <input id="link-id" name="id" required placeholder="mk_eqkWN34UEoa2NxyALG8pcV" className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-sm" />
        </div>
        <button type="submit" className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700">
          Open
        </button>
      </form>
      <p className="mt-3 max-w-xl text-sm text-slate-600">The full list of links with filters by state and error code is not available yet.</p>
    </>
  );
}
