import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { ImportDesk } from "@/components/import/import-desk";
import { ImportRun } from "@/components/import/import-run";
import { Callout } from "@/components/ui/callout";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getBudget } from "@/lib/budget";
import { callHeadroom } from "@/lib/budget/headroom";
import { getDb } from "@/lib/db/client";
import { IMPORT_BATCH_ENDPOINT, IMPORT_ENDPOINT, IMPORT_KIND } from "@/lib/jobs/import-items";
import { readJobView } from "@/lib/jobs/view";

export const metadata: Metadata = { title: "Import" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Ops (and admins) import legacy links from a JSON export. With ?job=<id> the page follows that import's job.
export default async function ImportPage({ searchParams }: { searchParams: Promise<{ job?: string | string[] }> }) {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/import");
  if (!can(staff.role, "import")) return <NotPermitted what={PERMISSION_LABELS.import} />;
  const { job: jobParam } = await searchParams;
  const jobId = typeof jobParam === "string" && UUID.test(jobParam) ? jobParam : null;
  const job = jobId ? await readJobView((await getDb()).db, jobId) : null;
  const header = (
    <PageHeader
      title="Import"
      description="Import legacy links from an old aggregator's JSON export: checked, previewed, split to the upstream's limits, never duplicated."
    />
  );

  if (jobParam !== undefined) {
    return (
      <>
        {header}
        <div className="space-y-4">
          {job && job.kind === IMPORT_KIND ? (
            <ImportRun initial={job} canControl={can(staff.role, "import")} />
          ) : (
            <Callout tone="error" title="No such import">
              The address names no import job. The Jobs page lists every import.
            </Callout>
          )}
          <Link href="/import" className="inline-block text-sm font-medium text-indigo-700 underline">
            Import another file
          </Link>
        </div>
      </>
    );
  }

  const budget = await getBudget();
  const headroom = {
    imports: await callHeadroom(budget, IMPORT_ENDPOINT, {}),
    batches: await callHeadroom(budget, IMPORT_BATCH_ENDPOINT, { linkId: "·" }),
  };
  return (
    <>
      {header}
      <ImportDesk headroom={headroom} />
    </>
  );
}
