import { withStaff } from "@/lib/auth/with-staff";
import { csvExport } from "@/lib/http/csv-export";
import { isItemState, streamJobItemsCsv } from "@/lib/jobs/view";
import { readJob } from "@/lib/jobs/store";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A job's items as CSV: all of them (results), or one state (?state=failed for the failures).
export const GET = withStaff<{ jobId: string }>(
  "read",
  { signIn: "Sign in to export jobs.", mayNot: "read jobs" },
  async (request, _staff, { jobId }) => {
    const state = request.nextUrl.searchParams.get("state") ?? undefined;
    return csvExport({
      filename: `job-${jobId.slice(0, 8)}${state ? `-${state}` : ""}`,
      parse: () => ({
        filters: { jobId, state: isItemState(state) ? state : undefined },
        dropped: [
          ...(UUID.test(jobId) ? [] : [{ param: "jobId", reason: "not a job id" }]),
          ...(state === undefined || isItemState(state) ? [] : [{ param: "state", reason: "not an item state" }]),
        ],
      }),
      subject: { find: (db, filters) => readJob(db, filters.jobId), notFound: "No such job." },
      async *rows(db, filters, job) {
        yield* streamJobItemsCsv(db, job, filters.state);
      },
    });
  },
);
