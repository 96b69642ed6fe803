import { withStaff } from "@/lib/auth/with-staff";
import { csvExport } from "@/lib/http/csv-export";
import { IMPORT_KIND } from "@/lib/jobs/import-items";
import { streamImportOutcomesCsv } from "@/lib/jobs/import-outcomes";
import { readJob } from "@/lib/jobs/store";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// An import job's results per link as CSV: where each link of the file stands, the link it made, and why it failed.
// (Every call, with its upstream status: the job's own export, /jobs/{id}/export.)
export const GET = withStaff<{ jobId: string }>(
  "read",
  { signIn: "Sign in to export import results.", mayNot: "read import results" },
  async (_request, _staff, { jobId }) =>
    csvExport({
      filename: `import-${jobId.slice(0, 8)}-links`,
      parse: () => ({
        filters: { jobId },
        dropped: UUID.test(jobId) ? [] : [{ param: "jobId", reason: "not a job id" }],
      }),
      // A job of another kind is no import: 404, as GET /api/import/{id} answers.
      subject: {
        find: async (db, filters) => {
          const job = await readJob(db, filters.jobId);
          return job?.kind === IMPORT_KIND ? job : null;
        },
        notFound: "No such import.",
      },
      async *rows(db, _filters, job) {
        yield* streamImportOutcomesCsv(db, job.id);
      },
    }),
);
